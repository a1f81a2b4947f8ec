//! Base64 bodies decoded in their own buffer (issue #31).
//!
//! A HAR holds a binary body as base64 text, a third larger than the body.
//! Decoding it the usual way (strip whitespace into a copy, decode into a
//! second buffer) held the text, the copy and the body at once: 2.7 times
//! the body before the JSON reader's own copies. Here the text's buffer is
//! decoded from front to back into itself: every 4 characters read give at
//! most 3 bytes written, so the write position never passes the read one.
//! What is accepted is what the standard alphabet with or without padding
//! accepts (whitespace anywhere, padding only at the end, trailing `=` not
//! counted), as before.

use base64::Engine as _;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::{DecodeError, DecodeSliceError, alphabet};

/// Characters decoded per step (a multiple of 4, so every step but the last
/// is whole quads).
const STEP: usize = 4 * 1024;

/// The standard alphabet; the final quad's padding is trimmed before this
/// sees it, so none is required.
const ENGINE: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::RequireNone),
);

/// Decodes the base64 text in `buf` into `buf` itself and returns it, cut to
/// the decoded length.
pub(crate) fn base64_in_place(mut buf: Vec<u8>) -> Result<Vec<u8>, DecodeError> {
    // `done`: characters (whitespace left out) decoded so far, for offsets in errors.
    let (mut read, mut write, mut done) = (0, 0, 0);
    let mut chars = [0u8; STEP];
    let mut out = [0u8; STEP / 4 * 3];
    loop {
        let mut n = 0;
        while n < STEP && read < buf.len() {
            let c = buf[read];
            read += 1;
            if !c.is_ascii_whitespace() {
                chars[n] = c;
                n += 1;
            }
        }
        let last = buf[read..].iter().all(u8::is_ascii_whitespace);
        let mut step = &chars[..n];
        if last {
            while let [rest @ .., b'='] = step {
                step = rest;
            }
        }
        let made = ENGINE
            .decode_slice(step, &mut out)
            .map_err(|e| in_whole(e, done))?;
        done += n;
        // `write + made <= read`: each 4 characters consumed make at most 3 bytes.
        buf[write..write + made].copy_from_slice(&out[..made]);
        write += made;
        if last {
            break;
        }
    }
    buf.truncate(write);
    Ok(buf)
}

/// An error of one step as an error of the whole text (offsets count from
/// its first character, whitespace left out).
fn in_whole(error: DecodeSliceError, done: usize) -> DecodeError {
    match error {
        DecodeSliceError::DecodeError(DecodeError::InvalidByte(at, byte)) => {
            DecodeError::InvalidByte(done + at, byte)
        }
        DecodeSliceError::DecodeError(DecodeError::InvalidLastSymbol {
            offset,
            symbol,
            symbol_value,
        }) => DecodeError::InvalidLastSymbol {
            offset: done + offset,
            symbol,
            symbol_value,
        },
        DecodeSliceError::DecodeError(DecodeError::InvalidLength(len)) => {
            DecodeError::InvalidLength(done + len)
        }
        DecodeSliceError::DecodeError(other) => other,
        // `out` holds all that a step decodes to; said as the length it was.
        DecodeSliceError::OutputSliceTooSmall => DecodeError::InvalidLength(done),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::STANDARD;
    use proptest::prelude::*;

    fn decode(text: &str) -> Result<Vec<u8>, DecodeError> {
        base64_in_place(text.as_bytes().to_vec())
    }

    #[test]
    fn padding_whitespace_and_junk() {
        assert_eq!(decode("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(decode("aGVsbG8").unwrap(), b"hello");
        assert_eq!(decode(" aGVs\r\nbG8=\n").unwrap(), b"hello");
        assert_eq!(decode("").unwrap(), b"");
        assert!(decode("aGVs=bG8").is_err(), "padding in the middle");
        assert!(decode("aGVsbG8!").is_err());
        // Offsets count in the whole text, past the first step.
        let long = format!("{}\n!", "A".repeat(STEP + 8));
        assert_eq!(
            decode(&long).unwrap_err(),
            DecodeError::InvalidByte(STEP + 8, b'!')
        );
    }

    proptest! {
        #[test]
        fn decodes_what_the_standard_engine_encodes_across_steps(
            body in proptest::collection::vec(any::<u8>(), 0..3 * STEP),
            wrap in 1usize..200,
        ) {
            let text = STANDARD.encode(&body);
            let wrapped: String = text
                .as_bytes()
                .chunks(wrap)
                .map(|c| format!("{}\n", String::from_utf8_lossy(c)))
                .collect();
            prop_assert_eq!(&decode(&text).unwrap(), &body);
            prop_assert_eq!(&decode(&wrapped).unwrap(), &body);
        }
    }
}
