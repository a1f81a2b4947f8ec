//! What the agent reads and changes besides the browser: the captured
//! traffic (the endpoint store), the documentation's annotations, the scope,
//! and the human at the keyboard.
//!
//! The store has one owner (in `ar`, the session's capture task), so the
//! agent never holds it: it sends a closure through [`Workspace::with_store`]
//! and gets the answer back. [`MemoryWorkspace`] keeps a store in memory for
//! tests and embedding.

use std::collections::BTreeSet;
use std::sync::{Mutex, PoisonError};

use ar_openapi::{Annotation, Enrichment};
use ar_store::store::EndpointStore;
use ar_store::{Flow, Request, Response};

use crate::llm::BoxFuture;

/// A closure run against the endpoint store by its owner.
pub type StoreFn = Box<dyn FnOnce(&EndpointStore) + Send>;

/// Why a workspace request failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WorkspaceError {
    /// The store's owner stopped (the session is ending).
    #[error("the capture pipeline is gone: {0}")]
    Gone(String),
    /// The workspace cannot do this.
    #[error("{what} is not supported here: {hint}")]
    Unsupported {
        /// What was asked.
        what: String,
        /// What to do instead.
        hint: String,
    },
    /// The workspace tried and failed (a bad host name, an unreadable archive).
    #[error("{what} failed: {reason}")]
    Failed {
        /// What was asked.
        what: String,
        /// Why it failed.
        reason: String,
    },
}

/// The agent's access to captured traffic, docs, scope and the human.
pub trait Workspace: Send + Sync {
    /// Runs `f` against the store and returns once it ran.
    fn with_store(&self, f: StoreFn) -> BoxFuture<'_, Result<(), WorkspaceError>>;

    /// Names and describes an endpoint in the spec (by stable key).
    fn annotate(
        &self,
        key: String,
        annotation: Annotation,
    ) -> BoxFuture<'_, Result<(), WorkspaceError>>;

    /// Adds (`add`) or removes a host from the documented scope; returns a
    /// one-line confirmation.
    fn change_scope(
        &self,
        host: String,
        add: bool,
    ) -> BoxFuture<'_, Result<String, WorkspaceError>>;

    /// Hands the browser to the human with `reason` and waits until they give
    /// it back; returns a summary of what their browsing added.
    fn ask_human(&self, reason: String) -> BoxFuture<'_, Result<String, WorkspaceError>>;

    /// Sends `request` through ar's own proxy, so the exchange is captured
    /// as a flow stamped [`ar_store::Client::Replay`]; the answer.
    fn replay(&self, request: Request) -> BoxFuture<'_, Result<Response, WorkspaceError>> {
        let what = format!("replaying {} {}", request.method, request.url);
        Box::pin(async move {
            Err(WorkspaceError::Unsupported {
                what,
                hint: "replay goes through ar's proxy, in an `ar <url>` session".into(),
            })
        })
    }
}

/// Runs `f` against the store and returns its value.
///
/// # Errors
/// When the store's owner is gone.
pub async fn query<T: Send + 'static>(
    workspace: &dyn Workspace,
    f: impl FnOnce(&EndpointStore) -> T + Send + 'static,
) -> Result<T, WorkspaceError> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    workspace
        .with_store(Box::new(move |store| {
            let _ = tx.send(f(store));
        }))
        .await?;
    rx.await
        .map_err(|_| WorkspaceError::Gone("the store did not answer".into()))
}

/// A store in memory: for tests, examples and tools that embed the agent.
///
/// `ask_human` answers at once that nobody is at the keyboard.
///
/// ```
/// use ar_agent::agent::{query, MemoryWorkspace};
/// use ar_store::scope::{Scope, ScopeConfig};
/// use ar_store::store::{EndpointStore, StoreConfig};
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let scope = Scope::new(ScopeConfig::for_target("https://shop.test/")).unwrap();
/// let ws = MemoryWorkspace::new(EndpointStore::new(scope, StoreConfig::default()));
/// let n = query(&ws, |store| store.stats().endpoints).await.unwrap();
/// assert_eq!(n, 0);
/// # }
/// ```
#[derive(Debug)]
pub struct MemoryWorkspace {
    store: Mutex<EndpointStore>,
    enrichment: Mutex<Enrichment>,
    extra_hosts: Mutex<BTreeSet<String>>,
}

impl MemoryWorkspace {
    /// A workspace around `store`.
    #[must_use]
    pub fn new(store: EndpointStore) -> Self {
        Self {
            store: Mutex::new(store),
            enrichment: Mutex::new(Enrichment::new()),
            extra_hosts: Mutex::new(BTreeSet::new()),
        }
    }

    /// Ingests a flow (what the capture pipeline does in `ar`).
    pub fn ingest(&self, flow: &Flow) {
        self.store
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .ingest(flow);
    }

    /// The annotations made so far.
    #[must_use]
    pub fn enrichment(&self) -> Enrichment {
        self.enrichment
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Hosts added to the scope with `scope_add`.
    #[must_use]
    pub fn extra_hosts(&self) -> BTreeSet<String> {
        self.extra_hosts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl Workspace for MemoryWorkspace {
    fn with_store(&self, f: StoreFn) -> BoxFuture<'_, Result<(), WorkspaceError>> {
        Box::pin(async move {
            f(&self.store.lock().unwrap_or_else(PoisonError::into_inner));
            Ok(())
        })
    }

    fn annotate(
        &self,
        key: String,
        annotation: Annotation,
    ) -> BoxFuture<'_, Result<(), WorkspaceError>> {
        Box::pin(async move {
            self.enrichment
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(key, annotation);
            Ok(())
        })
    }

    fn change_scope(
        &self,
        host: String,
        add: bool,
    ) -> BoxFuture<'_, Result<String, WorkspaceError>> {
        Box::pin(async move {
            let mut hosts = self
                .extra_hosts
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            Ok(if add {
                hosts.insert(host.clone());
                format!("{host} is in scope from now on")
            } else {
                hosts.remove(&host);
                format!("{host} is out of scope from now on")
            })
        })
    }

    fn ask_human(&self, reason: String) -> BoxFuture<'_, Result<String, WorkspaceError>> {
        Box::pin(async move {
            Err(WorkspaceError::Unsupported {
                what: format!("asking a human ({reason})"),
                hint: "nobody is at the keyboard: carry on without it or report what blocks you"
                    .into(),
            })
        })
    }
}
