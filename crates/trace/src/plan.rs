//! Which turns are traced and where their spans go: the settings' `agents.tracing`, the
//! agent's `tracing:` and `--trace`, resolved per turn ([`TracePlan`]), and [`Tracing`], which
//! owns the backends of a process and starts the root span of each traced turn.

use crate::console::ConsoleSink;
use crate::otel::{ExportWarning, OtelConfig, OtelSink, WarningCallback, sdk_disabled_from_env};
use crate::sinks::{FanOut, JsonlSink, StoreSink, WarningFn};
use crate::span::OpenSpan;
use agentctl_core::{
    Redactor, SpanDetail, SpanKind, SpanSink, TraceId, TracePolicy, TracingBackend,
    TracingSettings, TracingSpec,
};
use agentctl_store::TraceLog;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// How one turn is traced.
#[derive(Debug, Clone, PartialEq)]
pub struct TracePlan {
    /// Whether the turn is traced at all (before sampling).
    pub enabled: bool,
    /// Where spans go besides the session store.
    pub backends: Vec<TracingBackend>,
    /// Kinds recorded; empty records all.
    pub events: Vec<SpanKind>,
    /// Fraction of turns traced.
    pub sample_rate: f64,
    /// Whether OpenTelemetry spans carry message contents.
    pub capture_content: bool,
}

impl TracePlan {
    /// The plan of a turn started by an agent with `spec` under `settings`; `forced` is
    /// `--trace` (traced whatever the rate, on the console besides the other backends).
    ///
    /// The agent's fields win over the settings' one by one; when tracing is on and nobody
    /// named a backend, spans go to `jsonl` files.
    ///
    /// ```
    /// use agentctl_core::{TracingBackend, TracingSettings, TracingSpec};
    /// use agentctl_trace::TracePlan;
    ///
    /// let off = TracePlan::resolve(&TracingSettings::default(), None, false);
    /// assert!(!off.enabled);
    /// let spec = TracingSpec { enabled: true, sample_rate: Some(0.5), ..TracingSpec::default() };
    /// let plan = TracePlan::resolve(&TracingSettings::default(), Some(&spec), false);
    /// assert_eq!((plan.enabled, plan.sample_rate), (true, 0.5));
    /// assert_eq!(plan.backends, [TracingBackend::Jsonl]);
    /// let forced = TracePlan::resolve(&TracingSettings::default(), Some(&spec), true);
    /// assert_eq!((forced.sample_rate, forced.backends.as_slice()), (1.0, &[TracingBackend::Console][..]));
    /// ```
    pub fn resolve(settings: &TracingSettings, spec: Option<&TracingSpec>, forced: bool) -> Self {
        let mut plan = Self {
            enabled: settings.enabled,
            backends: settings.backend.clone(),
            events: settings.events.clone(),
            sample_rate: settings.sample_rate,
            capture_content: settings.capture_content,
        };
        if let Some(spec) = spec {
            plan.enabled = spec.enabled;
            if !spec.backend.is_empty() {
                plan.backends.clone_from(&spec.backend);
            }
            if !spec.events.is_empty() {
                plan.events.clone_from(&spec.events);
            }
            if let Some(rate) = spec.sample_rate {
                plan.sample_rate = rate;
            }
            if let Some(capture) = spec.capture_content {
                plan.capture_content = capture;
            }
        }
        if forced {
            plan.enabled = true;
            plan.sample_rate = 1.0;
            // `--trace` prints; the files and collectors of the settings stay as configured.
            if !plan.backends.contains(&TracingBackend::Console) {
                plan.backends.insert(0, TracingBackend::Console);
            }
        } else if plan.enabled && plan.backends.is_empty() {
            plan.backends.push(TracingBackend::Jsonl);
        }
        plan
    }

    /// Decides, once for the turn, whether it is traced: on, and drawn by the sample rate.
    pub fn sampled(&self) -> bool {
        self.enabled && self.sample_rate > 0.0 && fastrand::f64() < self.sample_rate
    }
}

/// The tracing backends of one process and the start of every traced turn.
///
/// Backends are built when a turn first needs them and shared by all later turns; the session
/// store's sink is per session. [`shutdown`](Self::shutdown) writes out what is buffered
/// (bounded in time for a collector that does not answer).
pub struct Tracing {
    settings: TracingSettings,
    forced: bool,
    traces_dir: Option<PathBuf>,
    redactor: Redactor,
    warn: WarningFn,
    console: OnceLock<Arc<dyn SpanSink>>,
    jsonl: OnceLock<Option<Arc<dyn SpanSink>>>,
    otel: OnceLock<Option<Arc<OtelSink>>>,
    langsmith: OnceLock<Option<Arc<OtelSink>>>,
    langfuse: OnceLock<Option<Arc<OtelSink>>>,
}

impl std::fmt::Debug for Tracing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tracing")
            .field("settings", &self.settings)
            .field("forced", &self.forced)
            .field("traces_dir", &self.traces_dir)
            .finish_non_exhaustive()
    }
}

impl Tracing {
    /// Tracing by `settings`; JSONL files under `traces_dir` (`None`: no `jsonl` backend, e.g.
    /// agents defined in code without a project), secrets masked by `redactor`, backend
    /// trouble reported through `warn`.
    pub fn new(
        settings: TracingSettings,
        traces_dir: Option<PathBuf>,
        redactor: Redactor,
        warn: WarningFn,
    ) -> Self {
        Self {
            settings,
            forced: false,
            traces_dir,
            redactor,
            warn,
            console: OnceLock::new(),
            jsonl: OnceLock::new(),
            otel: OnceLock::new(),
            langsmith: OnceLock::new(),
            langfuse: OnceLock::new(),
        }
    }

    /// Traces every turn on the console too (`--trace`), whatever the settings and agents say.
    pub fn force_console(mut self, forced: bool) -> Self {
        self.forced = forced;
        self
    }

    /// The masking every span goes through.
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// The plan of a turn started by an agent whose `tracing:` is `spec`.
    pub fn plan(&self, spec: Option<&TracingSpec>) -> TracePlan {
        TracePlan::resolve(&self.settings, spec, self.forced)
    }

    /// Starts the root span of a turn when it is traced (the decision is taken here, once),
    /// writing to the plan's backends and to `store` for `session`.
    pub fn begin(
        &self,
        spec: Option<&TracingSpec>,
        store: Option<(Arc<dyn TraceLog>, &str)>,
        detail: SpanDetail,
    ) -> Option<OpenSpan> {
        let plan = self.plan(spec);
        if !plan.sampled() {
            return None;
        }
        let session = store.as_ref().map(|(_, session)| (*session).to_owned());
        let sink = self.sink(&plan, store);
        let policy = TracePolicy {
            events: plan.events,
            redactor: self.redactor.clone(),
        };
        Some(OpenSpan::root(
            TraceId::random(),
            session.as_deref(),
            sink,
            policy,
            detail,
        ))
    }

    /// Whether an OpenTelemetry exporter was started, which [`shutdown`](Self::shutdown)
    /// flushes (blocking, up to its time limit); without one, shutting down does nothing.
    pub fn has_exporter(&self) -> bool {
        self.exporters().next().is_some()
    }

    /// The OpenTelemetry exporters started (`otel`, `langsmith`, `langfuse`).
    fn exporters(&self) -> impl Iterator<Item = &Arc<OtelSink>> {
        [&self.otel, &self.langsmith, &self.langfuse]
            .into_iter()
            .filter_map(|exporter| exporter.get().and_then(Option::as_ref))
    }

    /// Writes out buffered spans; an OpenTelemetry exporter gets a bounded time to deliver.
    pub fn shutdown(&self) {
        for exporter in self.exporters() {
            exporter.shutdown();
        }
    }

    fn sink(
        &self,
        plan: &TracePlan,
        store: Option<(Arc<dyn TraceLog>, &str)>,
    ) -> Arc<dyn SpanSink> {
        let mut sinks: Vec<Arc<dyn SpanSink>> = Vec::new();
        if let Some((store, session)) = store {
            sinks.push(Arc::new(StoreSink::new(
                store,
                session,
                Arc::clone(&self.warn),
            )));
        }
        for backend in &plan.backends {
            let sink = match backend {
                TracingBackend::Console => {
                    Some(Arc::clone(self.console.get_or_init(|| {
                        Arc::new(ConsoleSink::stderr()) as Arc<dyn SpanSink>
                    })))
                }
                TracingBackend::Jsonl => self
                    .jsonl
                    .get_or_init(|| {
                        self.traces_dir.as_ref().map(|dir| {
                            Arc::new(JsonlSink::new(dir, Arc::clone(&self.warn)))
                                as Arc<dyn SpanSink>
                        })
                    })
                    .clone(),
                TracingBackend::Otel => self.exporter(&self.otel, *backend, plan),
                TracingBackend::Langsmith => self.exporter(&self.langsmith, *backend, plan),
                TracingBackend::Langfuse => self.exporter(&self.langfuse, *backend, plan),
            };
            sinks.extend(sink);
        }
        Arc::new(FanOut::new(sinks))
    }

    /// The exporter of an OpenTelemetry `backend`, started on first use (at most once, a
    /// failure said once).
    fn exporter(
        &self,
        slot: &OnceLock<Option<Arc<OtelSink>>>,
        backend: TracingBackend,
        plan: &TracePlan,
    ) -> Option<Arc<dyn SpanSink>> {
        slot.get_or_init(|| self.start_exporter(backend, plan.capture_content))
            .clone()
            .map(|sink| sink as Arc<dyn SpanSink>)
    }

    fn start_exporter(
        &self,
        backend: TracingBackend,
        capture_content: bool,
    ) -> Option<Arc<OtelSink>> {
        // The operator's switch for all OpenTelemetry export: off, quietly, whatever the agent
        // or the settings ask for (the other backends are not affected).
        if sdk_disabled_from_env() {
            return None;
        }
        let config = match backend {
            TracingBackend::Langsmith => OtelConfig::langsmith_from_env(),
            TracingBackend::Langfuse => OtelConfig::langfuse_from_env(),
            _ => OtelConfig::from_env(),
        };
        let warn = Arc::clone(&self.warn);
        let started = config.and_then(|mut config| {
            config.capture_content |= capture_content;
            let callback: WarningCallback =
                Arc::new(move |warning: ExportWarning| warn(warning.to_string()));
            OtelSink::new(config, callback)
        });
        match started {
            Ok(sink) => Some(Arc::new(sink)),
            Err(error) => {
                (self.warn)(format!(
                    "{} tracing is off: {error}",
                    match backend {
                        TracingBackend::Langsmith => "LangSmith",
                        TracingBackend::Langfuse => "Langfuse",
                        _ => "OpenTelemetry",
                    }
                ));
                None
            }
        }
    }
}
