//! Keeps the conversation small: full page snapshots are the bulk of a
//! browsing conversation and only the latest one is worth its tokens, so
//! older ones are replaced by a stub before each model call. Only the text
//! changes; tool call ids and the alternation of roles stay intact.

use crate::llm::{ContentBlock, Message};

/// What an old snapshot becomes.
pub(crate) const DROPPED: &str =
    "(an older page snapshot, dropped to save space: later results show the page as it is now)";

/// True for a tool result that holds a whole snapshot (`url:` / `title:` first).
fn is_snapshot(text: &str) -> bool {
    text.starts_with("url: ") && text.contains("\ntitle: ")
}

/// Replaces every full snapshot but the newest with [`DROPPED`].
pub(crate) fn prune(messages: &mut [Message]) {
    let mut newest_seen = false;
    for message in messages.iter_mut().rev() {
        for block in message.content.iter_mut().rev() {
            if let ContentBlock::ToolResult(result) = block
                && !result.is_error
                && is_snapshot(&result.content)
            {
                if newest_seen {
                    result.content = DROPPED.to_owned();
                } else {
                    newest_seen = true;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ToolResult;

    #[test]
    fn only_the_newest_snapshot_survives() {
        let page =
            |n: u32| format!("url: https://shop.test/{n}\ntitle: P{n}\n- link \"x\" [ref=e1]\n");
        let mut messages = vec![
            Message::tool_results([ToolResult::ok("a", page(1))]),
            Message::assistant_text("ok"),
            Message::tool_results([
                ToolResult::ok("b", page(2)),
                ToolResult::ok("c", "page changes:\n+ - text: hi\n"),
            ]),
            Message::tool_results([ToolResult::ok("d", page(3))]),
        ];
        prune(&mut messages);
        let texts: Vec<String> = messages
            .iter()
            .flat_map(|m| m.content.iter())
            .filter_map(|b| match b {
                ContentBlock::ToolResult(r) => Some(r.content.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(texts[0], DROPPED);
        assert_eq!(texts[1], DROPPED);
        assert!(texts[2].starts_with("page changes"));
        assert!(texts[3].contains("shop.test/3"));
    }
}
