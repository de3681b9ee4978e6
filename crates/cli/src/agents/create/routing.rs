//! The P2 questions about other agents (seed 002 §4.2.1): triggers that route prompts here,
//! handoffs to other agents, and a graph of agents. Each section takes its flags when any is
//! given, asks on a terminal with `--extended`, and is left out otherwise.

use super::ui::{Question, Ui};
use crate::args::ExtendedArgs;
use agentctl_core::{GRAPH_END, GraphEdge, GraphNode, GraphSpec, Handoff, HandoffPayload, Trigger};
use agentctl_session::definitions::is_valid_name;
use agentctl_session::routing::Condition;
use serde_json::Value;

/// Priority of a trigger when none is given (the middle of the seed's 0–10).
const DEFAULT_PRIORITY: i32 = 5;

/// What the wizard knows of the project while asking: the agents found (handoff and graph
/// targets) and the name of the one being made.
pub(super) struct Known<'a> {
    /// Names of the agents found, sorted.
    pub agents: &'a [String],
    /// The new agent's name.
    pub name: &'a str,
}

impl Known<'_> {
    /// The agents this one can point at: every agent found but itself.
    fn others(&self) -> Vec<String> {
        self.agents
            .iter()
            .filter(|agent| *agent != self.name)
            .cloned()
            .collect()
    }
}

/// 🎯 Triggers: keywords, a pattern and a priority, as one trigger.
pub(super) fn triggers(ui: &Ui, args: &ExtendedArgs, ask: bool) -> anyhow::Result<Vec<Trigger>> {
    let flagged = !args.trigger_keywords.is_empty() || !args.trigger_regex.is_empty();
    if !flagged {
        anyhow::ensure!(
            args.trigger_priority.is_none() && args.trigger_intent.is_none(),
            "--trigger-priority and --trigger-intent qualify a trigger: pass --trigger KEYWORDS or --trigger-regex PATTERN too"
        );
    }
    let (keywords, regex) = if flagged {
        for pattern in &args.trigger_regex {
            check_regex(pattern).map_err(|e| anyhow::anyhow!("--trigger-regex: {e}"))?;
        }
        (words(&args.trigger_keywords), args.trigger_regex.clone())
    } else if ask {
        ui.section("🎯 Triggers (auto-routing)")?;
        let keywords = ui.text(
            &Question {
                prompt: "Trigger keywords (comma-separated, enter to skip)",
                flag: "--trigger KEYWORDS",
                what: "trigger keywords",
            },
            None,
            true,
            |_| Ok(()),
        )?;
        let pattern = ui.text(
            &Question {
                prompt: "Regex pattern (enter to skip)",
                flag: "--trigger-regex PATTERN",
                what: "trigger pattern",
            },
            None,
            true,
            check_regex,
        )?;
        let regex = if pattern.is_empty() {
            Vec::new()
        } else {
            vec![pattern]
        };
        (words(&[keywords]), regex)
    } else {
        return Ok(Vec::new());
    };
    if keywords.is_empty() && regex.is_empty() {
        return Ok(Vec::new());
    }
    let priority = match args.trigger_priority {
        Some(priority) => priority,
        None => ui
            .text(
                &Question {
                    prompt: "Priority (higher wins when several agents match)",
                    flag: "--trigger-priority N",
                    what: "trigger priority",
                },
                Some(DEFAULT_PRIORITY.to_string()),
                false,
                |answer| {
                    answer
                        .parse::<i32>()
                        .map(drop)
                        .map_err(|_| format!("`{answer}` is not a whole number"))
                },
            )?
            .parse()
            .unwrap_or(DEFAULT_PRIORITY),
    };
    Ok(vec![Trigger {
        intent: args.trigger_intent.clone(),
        keywords,
        regex,
        priority,
        ..Trigger::default()
    }])
}

/// 🔄 Handoffs: target agents, each with an optional `when` condition and payload schema.
pub(super) fn handoffs(
    ui: &Ui,
    args: &ExtendedArgs,
    ask: bool,
    known: &Known<'_>,
) -> anyhow::Result<Vec<Handoff>> {
    if !args.handoffs.is_empty() || !args.handoff_payloads.is_empty() {
        return handoff_flags(args);
    }
    if !ask {
        return Ok(Vec::new());
    }
    ui.section("🔄 Handoffs")?;
    let mut out: Vec<Handoff> = Vec::new();
    loop {
        let taken: Vec<&str> = out.iter().map(|h| h.to.as_str()).collect();
        let candidates: Vec<String> = known
            .others()
            .into_iter()
            .filter(|agent| !taken.contains(&agent.as_str()))
            .collect();
        let question = Question {
            prompt: "Hand off to",
            flag: "--handoff AGENT[:WHEN]",
            what: "handoff target",
        };
        let Some(to) = pick_agent(ui, &question, &candidates, "no more handoffs")? else {
            break;
        };
        let when = ui.text(
            &Question {
                prompt: "  When condition (CEL over the session state, enter for always)",
                flag: "--handoff AGENT:WHEN",
                what: "handoff condition",
            },
            None,
            true,
            check_condition,
        )?;
        let schema = ui.text(
            &Question {
                prompt: "  Payload schema (JSON, enter to skip)",
                flag: "--handoff-payload AGENT=SCHEMA",
                what: "payload schema",
            },
            None,
            true,
            |answer| json_object(answer).map(drop),
        )?;
        out.push(Handoff {
            to,
            when: (!when.is_empty()).then_some(when),
            payload: if schema.is_empty() {
                None
            } else {
                Some(HandoffPayload {
                    schema: json_object(&schema).map_err(anyhow::Error::msg)?,
                })
            },
            ..Handoff::default()
        });
    }
    Ok(out)
}

fn handoff_flags(args: &ExtendedArgs) -> anyhow::Result<Vec<Handoff>> {
    let mut out: Vec<Handoff> = Vec::new();
    for value in &args.handoffs {
        let (to, when) = match value.split_once(':') {
            Some((to, when)) => (to.trim(), Some(when.trim())),
            None => (value.trim(), None),
        };
        anyhow::ensure!(
            is_valid_name(to),
            "--handoff `{value}`: `{to}` is not an agent name (kebab-case); write AGENT or AGENT:WHEN"
        );
        if let Some(when) = when {
            check_condition(when).map_err(|e| anyhow::anyhow!("--handoff `{to}`: {e}"))?;
        }
        out.push(Handoff {
            to: to.to_owned(),
            when: when.filter(|w| !w.is_empty()).map(str::to_owned),
            ..Handoff::default()
        });
    }
    for value in &args.handoff_payloads {
        let (to, schema) = value.split_once('=').ok_or_else(|| {
            anyhow::anyhow!("--handoff-payload `{value}`: write AGENT=SCHEMA (a JSON object)")
        })?;
        let handoff = out.iter_mut().find(|h| h.to == to.trim()).ok_or_else(|| {
            anyhow::anyhow!(
                "--handoff-payload `{}`: no --handoff {} to attach it to",
                to.trim(),
                to.trim()
            )
        })?;
        let schema = json_object(schema)
            .map_err(|e| anyhow::anyhow!("--handoff-payload `{}`: {e}", to.trim()))?;
        handoff.payload = Some(HandoffPayload { schema });
    }
    Ok(out)
}

/// 📊 Graph: nodes that each run an agent, edges with optional conditions, an entry node.
pub(super) fn graph(
    ui: &Ui,
    args: &ExtendedArgs,
    ask: bool,
    known: &Known<'_>,
) -> anyhow::Result<Option<GraphSpec>> {
    if !args.graph_nodes.is_empty() {
        return graph_flags(args).map(Some);
    }
    anyhow::ensure!(
        args.graph_edges.is_empty() && args.graph_entry.is_none(),
        "--graph-edge and --graph-entry need the graph's nodes: pass --graph-node NODE=AGENT"
    );
    if !ask {
        return Ok(None);
    }
    ui.section("📊 Graph (multi-agent orchestration)")?;
    let define = ui.confirm(
        &Question {
            prompt: "Define a graph (this agent runs other agents in turn)?",
            flag: "--graph-node NODE=AGENT",
            what: "graph",
        },
        false,
    )?;
    if !define {
        return Ok(None);
    }
    let nodes = ask_nodes(ui, known)?;
    let Some(first) = nodes.first() else {
        ui.note("No nodes: no graph.")?;
        return Ok(None);
    };
    let names: Vec<String> = nodes.iter().map(|n| n.name.clone()).collect();
    let entry = if names.len() > 1 {
        let index = ui.select(
            &Question {
                prompt: "Entry node",
                flag: "--graph-entry NODE",
                what: "entry node",
            },
            &names,
            0,
        )?;
        names[index].clone()
    } else {
        first.name.clone()
    };
    let edges = ask_edges(ui, &names)?;
    Ok(Some(GraphSpec {
        entry,
        nodes,
        edges,
        max_steps: None,
        reducers: Default::default(),
    }))
}

/// The graph's nodes, asked one by one until an empty name.
fn ask_nodes(ui: &Ui, known: &Known<'_>) -> anyhow::Result<Vec<GraphNode>> {
    let mut nodes: Vec<GraphNode> = Vec::new();
    loop {
        let names: Vec<String> = nodes.iter().map(|n| n.name.clone()).collect();
        let name = ui.text(
            &Question {
                prompt: "Node name (enter when done)",
                flag: "--graph-node NODE=AGENT",
                what: "graph node",
            },
            None,
            true,
            |answer| check_node_name(answer, &names),
        )?;
        if name.is_empty() {
            break;
        }
        let question = Question {
            prompt: "  Agent it runs",
            flag: "--graph-node NODE=AGENT",
            what: "node agent",
        };
        let Some(agent) = pick_agent(ui, &question, &known.others(), "cancel this node")? else {
            continue;
        };
        let output = ui.text(
            &Question {
                prompt: &format!("  State key of its answer, for conditions (enter for `{name}`)"),
                flag: "--graph-node NODE=AGENT:KEY",
                what: "node output key",
            },
            None,
            true,
            check_output_key,
        )?;
        nodes.push(GraphNode {
            name,
            agent,
            output: (!output.is_empty()).then_some(output),
            graph: None,
            join: None,
            map: None,
        });
    }
    Ok(nodes)
}

fn ask_edges(ui: &Ui, names: &[String]) -> anyhow::Result<Vec<GraphEdge>> {
    let mut edges = Vec::new();
    let mut from_items = vec!["(no more edges)".to_owned()];
    from_items.extend(names.iter().cloned());
    let mut to_items: Vec<String> = names.to_vec();
    to_items.push(GRAPH_END.to_owned());
    loop {
        let from = ui.select(
            &Question {
                prompt: "Edge from",
                flag: "--graph-edge FROM->TO[:CONDITION]",
                what: "graph edge",
            },
            &from_items,
            0,
        )?;
        if from == 0 {
            break;
        }
        let to = ui.select(
            &Question {
                prompt: "  Edge to",
                flag: "--graph-edge FROM->TO[:CONDITION]",
                what: "graph edge",
            },
            &to_items,
            to_items.len() - 1,
        )?;
        let condition = ui.text(
            &Question {
                prompt: "  Condition (CEL over the graph state, enter for always)",
                flag: "--graph-edge FROM->TO:CONDITION",
                what: "edge condition",
            },
            None,
            true,
            check_condition,
        )?;
        edges.push(GraphEdge {
            from: from_items[from].clone(),
            to: to_items[to].clone().into(),
            condition: (!condition.is_empty()).then_some(condition),
        });
    }
    Ok(edges)
}

fn graph_flags(args: &ExtendedArgs) -> anyhow::Result<GraphSpec> {
    let mut nodes: Vec<GraphNode> = Vec::new();
    for value in &args.graph_nodes {
        let (name, agent) = value
            .split_once('=')
            .map(|(n, a)| (n.trim(), a.trim()))
            .ok_or_else(|| anyhow::anyhow!("--graph-node `{value}`: write NODE=AGENT[:KEY]"))?;
        let names: Vec<String> = nodes.iter().map(|n| n.name.clone()).collect();
        check_node_name(name, &names)
            .map_err(|e| anyhow::anyhow!("--graph-node `{value}`: {e}"))?;
        let (agent, output) = match agent.split_once(':') {
            Some((agent, output)) => (agent.trim(), Some(output.trim())),
            None => (agent, None),
        };
        anyhow::ensure!(
            is_valid_name(agent),
            "--graph-node `{value}`: `{agent}` is not an agent name (kebab-case)"
        );
        if let Some(output) = output {
            check_output_key(output).map_err(|e| anyhow::anyhow!("--graph-node `{value}`: {e}"))?;
        }
        nodes.push(GraphNode {
            name: name.to_owned(),
            agent: agent.to_owned(),
            output: output.filter(|o| !o.is_empty()).map(str::to_owned),
            graph: None,
            join: None,
            map: None,
        });
    }
    let names: Vec<&str> = nodes.iter().map(|n| n.name.as_str()).collect();
    let node = |flag: &str, value: &str, name: &str, end_ok: bool| -> anyhow::Result<String> {
        anyhow::ensure!(
            names.contains(&name) || (end_ok && name == GRAPH_END),
            "{flag} `{value}`: no node `{name}` (nodes: {}{})",
            names.join(", "),
            if end_ok { ", or END" } else { "" }
        );
        Ok(name.to_owned())
    };
    let mut edges = Vec::new();
    for value in &args.graph_edges {
        let (from, rest) = value
            .split_once("->")
            .ok_or_else(|| anyhow::anyhow!("--graph-edge `{value}`: write FROM->TO[:CONDITION]"))?;
        let (to, condition) = match rest.split_once(':') {
            Some((to, condition)) => (to, Some(condition.trim())),
            None => (rest, None),
        };
        if let Some(condition) = condition {
            check_condition(condition)
                .map_err(|e| anyhow::anyhow!("--graph-edge `{value}`: {e}"))?;
        }
        edges.push(GraphEdge {
            from: node("--graph-edge", value, from.trim(), false)?,
            to: node("--graph-edge", value, to.trim(), true)?.into(),
            condition: condition.filter(|c| !c.is_empty()).map(str::to_owned),
        });
    }
    let entry = match &args.graph_entry {
        Some(entry) => node("--graph-entry", entry, entry.trim(), false)?,
        None => names.first().map(|n| (*n).to_owned()).unwrap_or_default(),
    };
    Ok(GraphSpec {
        entry,
        nodes,
        edges,
        max_steps: None,
        reducers: Default::default(),
    })
}

/// An agent from `candidates`, or one typed in (kebab-case); `None` when the user picks
/// `skip` (the first line, and the answer without a terminal) or types nothing.
fn pick_agent(
    ui: &Ui,
    question: &Question<'_>,
    candidates: &[String],
    skip: &str,
) -> anyhow::Result<Option<String>> {
    let typed = |prompt: &str| {
        ui.text(
            &Question {
                prompt,
                flag: question.flag,
                what: question.what,
            },
            None,
            true,
            |answer| {
                if is_valid_name(answer) {
                    Ok(())
                } else {
                    Err(format!("`{answer}` is not an agent name: use kebab-case"))
                }
            },
        )
        .map(|name| (!name.is_empty()).then_some(name))
    };
    if candidates.is_empty() {
        return typed(&format!("{} (agent name, enter to skip)", question.prompt));
    }
    let mut items = vec![format!("({skip})")];
    items.extend(candidates.iter().cloned());
    items.push("another agent… (type its name)".to_owned());
    let index = ui.select(question, &items, 0)?;
    match index {
        0 => Ok(None),
        i if i == items.len() - 1 => typed("  Agent name"),
        i => Ok(Some(items[i].clone())),
    }
}

/// Keywords from comma-separated values, trimmed, without empty ones.
fn words(values: &[String]) -> Vec<String> {
    values
        .iter()
        .flat_map(|value| value.split(','))
        .map(str::trim)
        .filter(|word| !word.is_empty())
        .map(str::to_owned)
        .collect()
}

/// A pattern the router can compile.
pub(super) fn check_regex(pattern: &str) -> Result<(), String> {
    regex::Regex::new(pattern)
        .map(drop)
        .map_err(|error| format!("invalid regular expression `{pattern}`: {error}"))
}

/// A CEL condition that compiles (empty is fine: no condition).
fn check_condition(expression: &str) -> Result<(), String> {
    if expression.trim().is_empty() {
        return Ok(());
    }
    Condition::check(expression).map_err(|error| error.to_string())
}

/// A JSON object (a schema, a payload shape).
pub(super) fn json_object(text: &str) -> Result<Value, String> {
    match serde_json::from_str::<Value>(text.trim()) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(_) => Err("expected a JSON object, such as {\"type\": \"object\"}".to_owned()),
        Err(error) => Err(format!("not valid JSON: {error}")),
    }
}

/// The state key a node's answer is stored under: a key conditions can read.
fn check_output_key(key: &str) -> Result<(), String> {
    if key.is_empty() {
        return Ok(());
    }
    agentctl_session::routing::check_state_key(key).map_err(|e| e.to_string())
}

fn check_node_name(name: &str, taken: &[String]) -> Result<(), String> {
    if name.is_empty() || name.chars().any(char::is_whitespace) {
        Err("a node name is one word, such as `analyzer`".to_owned())
    } else if name == GRAPH_END {
        Err("`END` is the end of the graph, not a node".to_owned())
    } else if taken.iter().any(|n| n == name) {
        Err(format!("there is already a node `{name}`"))
    } else if name.contains("->") || name.contains(':') {
        Err("a node name cannot hold `->` or `:`".to_owned())
    } else {
        Ok(())
    }
}
