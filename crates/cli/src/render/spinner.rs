//! The "thinking…" spinner on stderr, while a model is asked.

use indicatif::{ProgressBar, ProgressStyle};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// The spinner, shared by the renderers of one invocation.
#[derive(Clone, Default)]
pub(crate) struct Spinner(Arc<Mutex<Option<ProgressBar>>>);

impl Spinner {
    /// Shows the spinner, if it is not shown yet.
    pub(crate) fn start(&self) {
        let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_some() {
            return;
        }
        let spinner = ProgressBar::new_spinner();
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg}") {
            spinner.set_style(style);
        }
        spinner.set_message("thinking…");
        spinner.enable_steady_tick(Duration::from_millis(100));
        *slot = Some(spinner);
    }

    /// Clears the spinner, if one is shown.
    pub(crate) fn stop(&self) {
        let spinner = self.0.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(spinner) = spinner {
            spinner.finish_and_clear();
        }
    }
}
