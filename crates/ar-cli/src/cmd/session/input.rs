//! Where the session's input comes from: a line editor on a terminal, plain
//! lines from a pipe, and signals. Everything arrives as [`Input`] on one
//! channel, so the session loop has a single place that decides what a
//! Ctrl-C means.
//!
//! On a terminal, rustyline runs on its own thread (it blocks) in raw mode,
//! so Ctrl-C arrives as [`Input::Interrupt`] from the editor rather than as
//! SIGINT; output printed meanwhile goes through rustyline's external
//! printer, which redraws the prompt instead of garbling it.

use std::io::Write as _;
use std::path::PathBuf;

use rustyline::error::ReadlineError;
use tokio::sync::{mpsc, oneshot};

/// One thing the user (or the system) did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Input {
    /// A line of text (a `/command` or an intent).
    Line(String),
    /// Ctrl-C (from the editor, or SIGINT).
    Interrupt,
    /// SIGTERM or SIGHUP: flush and exit.
    Terminate,
    /// End of input (Ctrl-D, or stdin closed).
    Eof,
}

/// Prints lines without garbling a prompt being edited.
pub(crate) enum Printer {
    /// Plain stdout (pipes, tests, before the editor starts).
    Stdout,
    /// The line editor's external printer.
    Editor(Box<dyn rustyline::ExternalPrinter + Send>),
}

impl Printer {
    /// Prints `text` (one or more lines; a missing final newline is added).
    pub(crate) fn print(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        let mut text = text.to_owned();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        match self {
            Self::Stdout => {
                let mut stdout = std::io::stdout().lock();
                // A closed pipe (`ar ... | head`) must not kill the session mid-flush.
                let _ = stdout.write_all(text.as_bytes());
                let _ = stdout.flush();
            }
            Self::Editor(printer) => {
                if printer.print(text).is_err() {
                    *self = Self::Stdout;
                }
            }
        }
    }
}

/// The terminal's settings when the session started, put back at exit.
///
/// The editor thread may still be inside `readline` (raw mode, bracketed
/// paste on) when the session ends; without this the user's shell would be
/// left in raw mode.
pub(crate) struct TerminalGuard {
    saved: Option<rustix::termios::Termios>,
}

impl TerminalGuard {
    /// Saves stdin's terminal settings (nothing when stdin is not a terminal).
    pub(crate) fn save() -> Self {
        Self {
            saved: rustix::termios::tcgetattr(std::io::stdin()).ok(),
        }
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        if let Some(saved) = &self.saved {
            let _ = rustix::termios::tcsetattr(
                std::io::stdin(),
                rustix::termios::OptionalActions::Now,
                saved,
            );
            // Bracketed paste off, and end the half-drawn prompt line.
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(b"\x1b[?2004l\r\x1b[K");
            let _ = stdout.flush();
        }
    }
}

/// Starts the line editor on a thread; returns its printer once it is up.
///
/// `prompt` is shown on each line; `history` is loaded at start and saved
/// after every line, so a crash loses nothing.
pub(crate) fn spawn_editor(
    prompt: String,
    history: Option<PathBuf>,
    inputs: mpsc::UnboundedSender<Input>,
) -> oneshot::Receiver<Printer> {
    let (printer_tx, printer_rx) = oneshot::channel();
    std::thread::Builder::new()
        .name("ar-repl".into())
        .spawn(move || editor_loop(&prompt, history, &inputs, printer_tx))
        .map_err(|error| tracing::warn!(%error, "cannot start the line editor"))
        .ok();
    printer_rx
}

fn editor_loop(
    prompt: &str,
    history: Option<PathBuf>,
    inputs: &mpsc::UnboundedSender<Input>,
    printer_tx: oneshot::Sender<Printer>,
) {
    let mut editor = match rustyline::DefaultEditor::new() {
        Ok(editor) => editor,
        Err(error) => {
            eprintln!("ar: cannot start the line editor ({error}); reading plain lines");
            let _ = printer_tx.send(Printer::Stdout);
            return plain_lines_blocking(inputs);
        }
    };
    if let Some(path) = &history {
        let _ = editor.load_history(path);
    }
    let printer = match editor.create_external_printer() {
        Ok(printer) => Printer::Editor(Box::new(printer)),
        Err(_) => Printer::Stdout,
    };
    let _ = printer_tx.send(printer);
    loop {
        let input = match editor.readline(prompt) {
            Ok(line) => {
                if !line.trim().is_empty() {
                    let _ = editor.add_history_entry(line.as_str());
                    if let Some(path) = &history {
                        let _ = editor.save_history(path);
                    }
                }
                Input::Line(line)
            }
            Err(ReadlineError::Interrupted) => Input::Interrupt,
            Err(ReadlineError::Eof) => Input::Eof,
            Err(error) => {
                eprintln!("ar: line editor failed: {error}");
                Input::Eof
            }
        };
        let last = input == Input::Eof;
        if inputs.send(input).is_err() || last {
            return;
        }
    }
}

/// The fallback when no editor can start: blocking plain lines.
fn plain_lines_blocking(inputs: &mpsc::UnboundedSender<Input>) {
    let mut line = String::new();
    loop {
        line.clear();
        match std::io::stdin().read_line(&mut line) {
            Ok(0) | Err(_) => {
                let _ = inputs.send(Input::Eof);
                return;
            }
            Ok(_) => {
                if inputs
                    .send(Input::Line(line.trim_end().to_owned()))
                    .is_err()
                {
                    return;
                }
            }
        }
    }
}

/// Reads plain lines from stdin (a pipe or a file) on a thread: scripts
/// and tests drive the session with the same commands a person types.
pub(crate) fn spawn_stdin_lines(inputs: mpsc::UnboundedSender<Input>) {
    let spawned = std::thread::Builder::new()
        .name("ar-stdin".into())
        .spawn(move || plain_lines_blocking(&inputs));
    if let Err(error) = spawned {
        tracing::warn!(%error, "cannot read stdin");
    }
}

/// Turns SIGINT into [`Input::Interrupt`] and SIGTERM/SIGHUP into
/// [`Input::Terminate`], for as long as the receiver lives.
pub(crate) fn spawn_signals(inputs: mpsc::UnboundedSender<Input>) -> anyhow::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    let mut hangup = signal(SignalKind::hangup())?;
    tokio::spawn(async move {
        loop {
            let input = tokio::select! {
                Some(()) = interrupt.recv() => Input::Interrupt,
                Some(()) = terminate.recv() => Input::Terminate,
                Some(()) = hangup.recv() => Input::Terminate,
                else => return,
            };
            if inputs.send(input).is_err() {
                return;
            }
        }
    });
    Ok(())
}
