//! The live web view's hold on `ar proxy`'s capture. Its questions
//! (endpoints, their evidence, the spec) and its corrections run as
//! [`Job`]s on the capture thread between two slices of flows, so the page
//! reads and changes the very pipeline the traffic goes through, as a
//! session's page does through its capture task.

use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use super::Capture;
use crate::pipeline::capture_threads::Job;
use crate::pipeline::enrich::{PipelineFn, Runner};
use crate::pipeline::redocument::{self, corrections_first};
use crate::pipeline::write_dir_templates;
use crate::session::Templater;

/// Sends work to the capture thread.
#[derive(Clone)]
pub(super) struct Jobs(mpsc::UnboundedSender<Job<Capture>>);

impl Jobs {
    /// A sender, and the receiver the capture thread takes jobs from.
    pub(super) fn channel() -> (Self, mpsc::UnboundedReceiver<Job<Capture>>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Self(tx), rx)
    }

    /// Runs closures on the pipeline (what the web view reads).
    pub(super) fn runner(&self) -> Runner {
        let jobs = self.0.clone();
        Arc::new(move |f: PipelineFn| {
            jobs.send(Box::new(move |capture: &mut Capture| capture.docs.run(f)))
                .is_ok()
        })
    }

    /// Applies corrections (user templates) from the web view.
    pub(super) fn templater(&self) -> Templater {
        let jobs = self.0.clone();
        Arc::new(move |patterns: Vec<String>| {
            let (tx, rx) = oneshot::channel();
            jobs.send(Box::new(move |capture: &mut Capture| {
                let _ = tx.send(capture.correct(patterns));
            }))
            .is_ok()
            .then_some(rx)
        })
    }
}

impl Capture {
    /// Puts `patterns`, a correction, before the ones made so far (the
    /// latest wins), documents the whole archive again with them and the
    /// `--template`s, rewrites the documents, and keeps the corrections in
    /// the output directory for `ar import` and the next `ar proxy` there.
    fn correct(&mut self, patterns: Vec<String>) -> anyhow::Result<String> {
        // Every flow ingested so far is in the archive file before it is read again.
        self.archive.flush()?;
        let corrections = corrections_first(&patterns, &self.corrections);
        let templates = corrections_first(&corrections, &self.given);
        let overrides = ar_store::template::Overrides::parse(templates.iter().map(String::as_str))?;
        let before = self.docs.summary();
        // The archive and the documents share the output directory.
        let dir = self.docs.out_dir().to_path_buf();
        let pipeline = self.docs.pipeline_mut();
        let scope = pipeline.scope_config().clone();
        let warnings =
            redocument::from_archive(pipeline, &dir, scope, Some(overrides), self.live.as_ref())?;
        for warning in warnings {
            eprintln!("ar: warning: {warning}");
        }
        write_dir_templates(&dir, &corrections)?;
        self.corrections = corrections;
        self.docs.write_now()?;
        if let Some(live) = &self.live {
            live.spec_written();
        }
        let after = self.docs.summary();
        Ok(redocument::correction_line(
            &patterns,
            after.flows,
            after.endpoints,
            before.endpoints,
        ))
    }
}
