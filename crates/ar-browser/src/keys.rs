//! Key names (`Enter`, `Control+a`) → WebDriver key codes.

use ar_agent::browser::BrowserError;
use fantoccini::key::Key;

/// The key codes of a chord: modifiers first, the key last.
pub(crate) fn parse_chord(input: &str) -> Result<Vec<char>, BrowserError> {
    // "+" alone, or a chord ending in "+" ("Control++"), means the plus key.
    let (mods, last) = match input.strip_suffix("++") {
        Some(rest) => (rest, "+"),
        None if input == "+" => ("", "+"),
        None => input.rsplit_once('+').unwrap_or(("", input)),
    };
    let mut chord = Vec::new();
    for part in mods.split('+').filter(|p| !p.is_empty()) {
        chord.push(parse_key(part, input)?);
    }
    chord.push(parse_key(last, input)?);
    Ok(chord)
}

fn parse_key(name: &str, whole: &str) -> Result<char, BrowserError> {
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return Ok(c);
    }
    let key = match name.to_ascii_lowercase().as_str() {
        "enter" | "return" => Key::Enter,
        "escape" | "esc" => Key::Escape,
        "tab" => Key::Tab,
        "backspace" => Key::Backspace,
        "delete" | "del" => Key::Delete,
        "space" => return Ok(' '),
        "arrowup" | "up" => Key::Up,
        "arrowdown" | "down" => Key::Down,
        "arrowleft" | "left" => Key::Left,
        "arrowright" | "right" => Key::Right,
        "pageup" => Key::PageUp,
        "pagedown" => Key::PageDown,
        "home" => Key::Home,
        "end" => Key::End,
        "insert" => Key::Insert,
        "control" | "ctrl" => Key::Control,
        "shift" => Key::Shift,
        "alt" | "option" => Key::Alt,
        "meta" | "command" | "cmd" => Key::Meta,
        "f1" => Key::F1,
        "f2" => Key::F2,
        "f3" => Key::F3,
        "f4" => Key::F4,
        "f5" => Key::F5,
        "f6" => Key::F6,
        "f7" => Key::F7,
        "f8" => Key::F8,
        "f9" => Key::F9,
        "f10" => Key::F10,
        "f11" => Key::F11,
        "f12" => Key::F12,
        _ => {
            return Err(BrowserError::InvalidArgument {
                what: format!("key {whole:?}"),
                reason: "use a character or Enter, Escape, Tab, Backspace, Delete, Space, \
                         ArrowUp/Down/Left/Right, PageUp, PageDown, Home, End, F1-F12, \
                         with modifiers like Control+a"
                    .to_owned(),
            });
        }
    };
    Ok(char::from(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_chords_and_characters() {
        assert_eq!(parse_chord("Enter").unwrap(), [char::from(Key::Enter)]);
        assert_eq!(parse_chord("a").unwrap(), ['a']);
        assert_eq!(
            parse_chord("Control+Shift+k").unwrap(),
            [char::from(Key::Control), char::from(Key::Shift), 'k']
        );
        assert_eq!(
            parse_chord("Control++").unwrap(),
            [char::from(Key::Control), '+']
        );
        assert_eq!(parse_chord("arrowdown").unwrap(), [char::from(Key::Down)]);
    }

    #[test]
    fn unknown_names_list_the_known_ones() {
        let error = parse_chord("Hyper").unwrap_err();
        assert!(error.to_string().contains("ArrowUp"), "{error}");
    }
}
