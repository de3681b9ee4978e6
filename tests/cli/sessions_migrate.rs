//! `agentctl sessions migrate` run again and again while both stores are used: a grown
//! session is updated, a session changed on both sides is named with what to do and makes the
//! command fail after everything else was copied, and memories travel once.

use super::support::TestProject;
use agentctl_core::Message;
use agentctl_store::{ContextScope, MessageQuery, NewMessage, SessionLog, SessionStore};
use agentctl_store_suite::{backends, open_location};

fn say(store: &dyn SessionStore, session: &str, text: &str) {
    store
        .append_messages(
            session,
            None,
            &[NewMessage::new(
                ContextScope::Main,
                None,
                Message::user(text),
            )],
        )
        .unwrap();
}

#[test]
fn a_session_changed_in_both_stores_is_named_and_the_command_fails_after_the_rest() {
    for backend in backends() {
        let target = backend.fresh();
        let project = TestProject::new();
        let local = project.store();
        let both = local.create_session(Some("both")).unwrap().id;
        let grows = local.create_session(Some("grows")).unwrap().id;
        say(&local, &both, "one");
        say(&local, &grows, "one");
        let to = ["sessions", "migrate", "--to", target.location.as_str()];
        let first = project.agentctl(&to);
        let first = String::from_utf8_lossy(&first.stdout);
        assert!(first.contains(&format!("copied {both}")), "{first}");

        let remote = open_location(&target.location);
        say(&local, &both, "here");
        say(&*remote, &both, "there");
        say(&local, &grows, "two");
        let output = project.output(&to);
        let (stdout, stderr) = (
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr),
        );
        assert_eq!(
            output.status.code(),
            Some(1),
            "{backend:?}: {stdout}\n{stderr}"
        );
        assert!(
            stderr.contains(&format!(
                "not copied: session {both} changed in both stores since they were last copied"
            )),
            "{stderr}"
        );
        assert!(stderr.contains("agentctl sessions delete"), "{stderr}");
        assert!(
            stderr.contains(&format!(
                "1 session changed in both stores not copied: {both}"
            )),
            "{stderr}"
        );
        assert!(stdout.contains(&format!("updated {grows}")), "{stdout}");
        let count = |id: &str| remote.messages(id, &MessageQuery::default()).unwrap().len();
        assert_eq!((count(&both), count(&grows)), (2, 2), "{backend:?}");

        let json = project.output(&[&to[..], &["--format", "json"]].concat());
        assert_eq!(json.status.code(), Some(1));
        let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
        assert_eq!(report["conflicts"], 1);
        let named = report["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|session| session["sessionId"] == both.as_str())
            .unwrap();
        assert_eq!(named["outcome"], "conflict");
        assert!(
            named["reason"]
                .as_str()
                .unwrap()
                .contains("changed in both stores")
        );

        // Keeping the local copy: delete the target's, and the next run copies it.
        remote.delete_session(&both).unwrap();
        let settled = project.agentctl(&to);
        let settled = String::from_utf8_lossy(&settled.stdout);
        assert!(settled.contains(&format!("copied {both}")), "{settled}");
        assert!(remote.sync_mark(&both).unwrap().is_some());
        drop(remote);
    }
}
