//! The REPL's grammar: `/commands` handled locally, everything else is an
//! intent for the agent. Parsing is separate from running so both are
//! easy to test.

/// One parsed line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Hand the browser to the user; capture goes on, flows are marked human.
    Take,
    /// Take the browser back and summarise what the user's browsing added.
    Done,
    /// List endpoints, optionally matching a text query.
    Flows(Option<String>),
    /// Where the spec is and what it holds.
    Spec,
    /// Add a host to the scope or take one out; the capture is re-documented.
    Scope {
        /// The host (`api.other.test`, `*.other.test`).
        host: String,
        /// Add (`true`) or remove.
        add: bool,
    },
    /// Write everything now (spec, `capture.har`, `session.json`).
    Save,
    /// Stop the current driver's turn.
    Stop,
    /// Run the built-in explorer.
    Explore,
    /// Open these pages in the browser, one after another.
    Open(Vec<String>),
    /// The status line, now.
    Status,
    /// The live web view's URL again.
    Ui,
    /// The list of commands.
    Help,
    /// Flush everything and exit.
    Quit,
    /// Plain text: an intent for the agent.
    Intent(String),
    /// A `/word` that is not a command.
    Unknown(String),
    /// A command missing its argument, with the usage to show.
    Usage(&'static str),
}

/// The help text, one command per line.
pub const HELP: &str = "\
Commands:
  /take          take the browser yourself (capture continues; flows are marked as yours)
  /done          give the browser back and see what your browsing added
  /flows [text]  list endpoints (all, or those matching text)
  /spec          where the spec is and what it holds
  /scope add|remove HOST  document a host's traffic too (or stop); re-documents what was captured
  /save          write the spec, capture.har and session.json now
  /stop          stop the current turn (Ctrl-C does the same)
  /explore       explore the site with the built-in explorer (no LLM)
  /open URL...   open pages in the browser
  /status        show the counters
  /ui            the live web view's address (with its token)
  /help          this list
  /quit          save everything and exit (Ctrl-D, or Ctrl-C twice)
Anything else is an intent for the agent, e.g. \"map the checkout flow\".";

/// Parses one line; `None` for a blank line.
pub fn parse(line: &str) -> Option<Command> {
    let line = line.trim();
    if line.is_empty() {
        return None;
    }
    let Some(rest) = line.strip_prefix('/') else {
        return Some(Command::Intent(line.to_owned()));
    };
    let (word, argument) = match rest.split_once(char::is_whitespace) {
        Some((word, argument)) => (word, argument.trim()),
        None => (rest, ""),
    };
    let command = match word.to_ascii_lowercase().as_str() {
        "take" => Command::Take,
        "done" => Command::Done,
        "flows" | "endpoints" => {
            Command::Flows((!argument.is_empty()).then(|| argument.to_owned()))
        }
        "spec" => Command::Spec,
        "scope" => {
            let mut words = argument.split_whitespace();
            match (words.next(), words.next(), words.next()) {
                (Some(verb @ ("add" | "remove" | "rm")), Some(host), None) => Command::Scope {
                    host: host.to_owned(),
                    add: verb == "add",
                },
                _ => Command::Usage("/scope add|remove HOST"),
            }
        }
        "save" => Command::Save,
        "stop" => Command::Stop,
        "explore" => Command::Explore,
        "open" | "goto" if argument.is_empty() => Command::Usage("/open URL [URL...]"),
        "open" | "goto" => Command::Open(argument.split_whitespace().map(str::to_owned).collect()),
        "status" => Command::Status,
        "ui" | "web" => Command::Ui,
        "help" | "h" | "?" => Command::Help,
        "quit" | "exit" | "q" => Command::Quit,
        _ => Command::Unknown(word.to_owned()),
    };
    Some(command)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slash_words_are_commands_with_their_arguments() {
        assert_eq!(parse("/take"), Some(Command::Take));
        assert_eq!(
            parse("  /flows  users me "),
            Some(Command::Flows(Some("users me".into())))
        );
        assert_eq!(parse("/flows"), Some(Command::Flows(None)));
        assert_eq!(parse("/QUIT"), Some(Command::Quit));
        assert_eq!(
            parse("/open https://a.test/x https://a.test/y"),
            Some(Command::Open(vec![
                "https://a.test/x".into(),
                "https://a.test/y".into()
            ]))
        );
        assert_eq!(parse("/open"), Some(Command::Usage("/open URL [URL...]")));
        assert_eq!(
            parse("/scope add api.other.test"),
            Some(Command::Scope {
                host: "api.other.test".into(),
                add: true
            })
        );
        assert_eq!(
            parse("/scope remove *.cdn.test"),
            Some(Command::Scope {
                host: "*.cdn.test".into(),
                add: false
            })
        );
        assert_eq!(
            parse("/scope"),
            Some(Command::Usage("/scope add|remove HOST"))
        );
    }

    #[test]
    fn plain_text_is_an_intent_and_blank_is_nothing() {
        assert_eq!(
            parse("map the checkout flow"),
            Some(Command::Intent("map the checkout flow".into()))
        );
        assert_eq!(parse("   "), None);
        assert_eq!(
            parse("/frobnicate now"),
            Some(Command::Unknown("frobnicate".into()))
        );
    }

    #[test]
    fn help_lists_every_command() {
        for word in [
            "/take", "/done", "/flows", "/spec", "/scope", "/save", "/stop", "/explore", "/open",
            "/ui", "/help", "/quit",
        ] {
            assert!(HELP.contains(word), "{word} missing from help");
        }
    }
}
