//! The session loop: input (editor or pipe), signals, driver turns, progress
//! and the status line, until `/quit`, end of input, a second Ctrl-C, or
//! SIGTERM; then everything is flushed.
//!
//! Ctrl-C while a driver runs stops its turn (the session goes on); Ctrl-C
//! with nothing running arms the exit, and a second one exits. Without a
//! terminal, each line is run to completion before the next is read, and a
//! session started with `--explore` exits once the explorer is done.

use std::io::IsTerminal as _;
use std::process::ExitCode;
use std::time::Duration;

use tokio::sync::mpsc;

use ar_session::session::commands::{self, Command};
use ar_session::session::{Event, Next, Session, Style, TurnOutcome};

use super::args::SessionArgs;
use super::input::{self, Input, Printer};

/// How often the status line may be reprinted.
const STATUS_EVERY: Duration = Duration::from_millis(1000);

/// Runs `ar <url>` until the user quits; returns the process exit code.
pub(crate) fn run(args: SessionArgs) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let result = runtime.block_on(run_in_runtime(args));
    // The editor thread may still sit in readline; do not wait for it.
    runtime.shutdown_timeout(Duration::from_millis(200));
    result
}

/// The session inside a running Tokio runtime (`ar demo` starts its fixture site first).
pub(crate) async fn run_in_runtime(args: SessionArgs) -> anyhow::Result<ExitCode> {
    let gen_client = args.gen_client;
    let config = args.config(time::OffsetDateTime::now_utc())?;
    let out_dir = config.out_dir.clone();
    let terminal = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    let interactive = terminal && config.intents.is_empty() && !config.batch;
    let style = Style::detect(std::io::stdout().is_terminal());
    let history = config.out_dir.join(".ar_history");

    let (signals_tx, mut signals) = mpsc::unbounded_channel();
    input::spawn_signals(signals_tx)?;

    let mut printer = Printer::Stdout;
    let mut buffer = Vec::new();
    let started = Session::start(config, style, &mut buffer).await;
    printer.print(&take(&mut buffer));
    let (mut session, mut events) = started?;

    let (lines_tx, mut lines) = mpsc::unbounded_channel();
    let terminal = interactive.then(input::TerminalGuard::save);
    if interactive {
        let prompt = style.bold("ar> ");
        let editor = input::spawn_editor(prompt, Some(history), lines_tx);
        printer.print(&format!(
            "{}\n",
            style.dim("/help lists the commands; type an intent or /explore")
        ));
        printer = editor.await.unwrap_or(Printer::Stdout);
    } else {
        input::spawn_stdin_lines(lines_tx);
    }

    // Non-interactive runs with work to do exit once it is done.
    let mut exit_after_turn = false;
    if session.config().explore {
        session.handle(Command::Explore, &mut buffer).await?;
        exit_after_turn = !interactive && session.turn_running();
    }
    if !session.config().intents.is_empty() {
        let intents = session.config().intents.clone();
        for intent in intents {
            session.handle(Command::Intent(intent), &mut buffer).await?;
        }
        // Intents run one after another in one agent turn; exit when it ends.
        exit_after_turn = !interactive || exit_after_turn;
    }
    printer.print(&take(&mut buffer));

    let mut armed = false;
    let mut end_of_input = false;
    let mut status = tokio::time::interval(STATUS_EVERY);
    exit_after_turn = exit_after_turn || session.config().batch;
    let done_before_loop = exit_after_turn && !session.turn_running();
    if !done_before_loop {
        loop {
            let gate = interactive || !session.turn_running();
            tokio::select! {
                Some(signal) = signals.recv() => {
                    match signal {
                        Input::Terminate => {
                            printer.print("ar: terminated: saving and exiting");
                            break;
                        }
                        _ => {
                            if interrupt(&mut session, &mut armed, &mut printer) {
                                break;
                            }
                        }
                    }
                }
                input = lines.recv(), if gate && !end_of_input => {
                    match input.unwrap_or(Input::Eof) {
                        Input::Line(line) => {
                            armed = false;
                            let Some(command) = commands::parse(&line) else { continue };
                            let next = session.handle(command, &mut buffer).await;
                            printer.print(&take(&mut buffer));
                            match next {
                                Ok(Next::Quit) => break,
                                Ok(Next::Continue) => {}
                                Err(error) => printer.print(&format!("error: {error:#}")),
                            }
                        }
                        Input::Interrupt => {
                            if interrupt(&mut session, &mut armed, &mut printer) {
                                break;
                            }
                        }
                        Input::Terminate => break,
                        Input::Eof => {
                            end_of_input = true;
                            if !session.turn_running() {
                                break;
                            }
                        }
                    }
                }
                Some(event) = events.recv() => match event {
                    Event::Message(line) => {
                        session.show_progress(&line);
                        printer.print(&line);
                    }
                    Event::TurnEnded(result) => {
                        let outcome = session.end_turn(result);
                        printer.print(&report(style, &outcome));
                        if exit_after_turn || end_of_input {
                            break;
                        }
                    }
                },
                _ = status.tick() => {
                    if let Some(line) = session.status_update() {
                        printer.print(&line);
                    }
                }
            }
        }
    }
    if terminal.is_some() {
        // Stop talking to the editor (it redraws its prompt after each
        // message), let it settle, then give the terminal back as it was.
        printer = Printer::Stdout;
        tokio::time::sleep(Duration::from_millis(50)).await;
        drop(terminal);
    }
    let finished = session.shutdown(&mut buffer).await;
    printer.print(&take(&mut buffer));
    finished?;
    if let Some(lang) = gen_client {
        // The spec is final once the session has shut down; the generators
        // are processes of their own, waited for off the runtime's workers.
        let made = tokio::task::spawn_blocking(move || {
            crate::cmd::gen_client::generate(&out_dir, lang, None, None)
        })
        .await??;
        crate::cmd::gen_client::report(&made, &mut buffer)?;
        printer.print(&take(&mut buffer));
    }
    Ok(ExitCode::SUCCESS)
}

/// Ctrl-C: stop the running turn, or arm the exit; true when the session should end.
fn interrupt(session: &mut Session, armed: &mut bool, printer: &mut Printer) -> bool {
    if *armed {
        printer.print("ar: saving and exiting");
        return true;
    }
    *armed = true;
    if session.stop_turn() {
        printer.print(&format!(
            "stopping the {} (Ctrl-C again to exit)",
            session.turn_name().unwrap_or("driver")
        ));
    } else {
        printer.print("Ctrl-C again, /quit or Ctrl-D exits (everything is saved)");
    }
    false
}

/// The message at the end of a turn: its first line says what the turn did
/// and added; the lines a driver adds after it (the explorer's "left
/// alone:" list) follow unchanged.
pub(crate) fn report(style: Style, outcome: &TurnOutcome) -> String {
    let added = format!(
        "+{} flows, +{} in scope, +{} endpoints",
        outcome.added.flows, outcome.added.in_scope_flows, outcome.added.endpoints
    );
    let refused = refused_phrase(outcome.refused.count, &outcome.refused.first);
    let (summary, details) = match &outcome.result {
        Ok(report) => report
            .summary
            .split_once('\n')
            .map_or((report.summary.as_str(), ""), |(first, rest)| (first, rest)),
        Err(_) => ("", ""),
    };
    let details = if details.is_empty() {
        String::new()
    } else {
        format!("\n{details}")
    };
    match &outcome.result {
        Ok(report) if report.cancelled => {
            format!(
                "{} stopped: {summary}{refused} ({added}){details}",
                outcome.name
            )
        }
        Ok(_) => format!(
            "{} {}: {summary}{refused} ({added}){details}",
            style.good("done:"),
            outcome.name,
        ),
        Err(error) => format!(
            "{} {} failed: {error:#}{refused} ({added})",
            style.warn("error:"),
            outcome.name
        ),
    }
}

/// Distinct requests named in the end-of-turn line; API.md lists more.
const REFUSED_NAMED: usize = 3;

/// "; the proxy refused 4 destructive requests (DELETE /api/carts/3 3 times,
/// POST /api/demo/clear; ...)" for `count` refusals, the `first` of them
/// named; nothing when the lock refused nothing.
fn refused_phrase(count: u64, first: &[impl std::fmt::Display]) -> String {
    if count == 0 {
        return String::new();
    }
    let mut distinct: Vec<(String, u64)> = Vec::new();
    for name in first.iter().map(ToString::to_string) {
        match distinct.iter_mut().find(|(n, _)| *n == name) {
            Some((_, times)) => *times += 1,
            None => distinct.push((name, 1)),
        }
    }
    distinct.truncate(REFUSED_NAMED);
    let listed: u64 = distinct.iter().map(|(_, times)| times).sum();
    let mut named: Vec<String> = (distinct.into_iter())
        .map(|(name, times)| match times {
            1 => name,
            _ => format!("{name} {times} times"),
        })
        .collect();
    if count > listed {
        named.push(format!("{} more", count - listed));
    }
    format!(
        "; the proxy refused {count} destructive {} ({}; --explore-unsafe allows them)",
        if count == 1 { "request" } else { "requests" },
        named.join(", ")
    )
}

fn take(buffer: &mut Vec<u8>) -> String {
    String::from_utf8_lossy(&std::mem::take(buffer)).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ar_capture::Refusals;

    use ar_session::session::Counters;
    use ar_session::session::driver::TurnReport;

    #[test]
    fn what_a_turn_added_ends_its_first_line_not_its_last() {
        let outcome = TurnOutcome {
            name: "explorer".to_owned(),
            result: Ok(TurnReport {
                summary: "17 pages, 81 actions\nleft untried:\n  3 destructive actions".to_owned(),
                cancelled: false,
            }),
            added: Counters {
                flows: 286,
                in_scope_flows: 190,
                endpoints: 28,
                hosts: 7,
            },
            refused: Refusals::default(),
        };
        assert_eq!(
            report(Style::plain(), &outcome),
            "done: explorer: 17 pages, 81 actions (+286 flows, +190 in scope, +28 endpoints)\nleft untried:\n  3 destructive actions"
        );
    }

    #[test]
    fn the_turn_line_names_the_first_refused_requests() {
        assert_eq!(refused_phrase(0, &[] as &[&str]), "");
        assert_eq!(
            refused_phrase(1, &["DELETE /api/carts/3"]),
            "; the proxy refused 1 destructive request (DELETE /api/carts/3; --explore-unsafe allows them)"
        );
        let first = [
            "DELETE /a/1",
            "POST /b/clear",
            "DELETE /a/1",
            "DELETE /a/2",
            "DELETE /a/3",
        ];
        assert_eq!(
            refused_phrase(7, &first),
            "; the proxy refused 7 destructive requests (DELETE /a/1 2 times, POST /b/clear, DELETE /a/2, 3 more; --explore-unsafe allows them)"
        );
    }
}
