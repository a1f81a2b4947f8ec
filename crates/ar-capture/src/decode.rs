//! Content decoding of the *captured copy* (the client always gets the
//! bytes as sent): gzip, deflate, br and zstd, stacked in any order.
//!
//! Decoding is bounded twice: by the output cap (the same cap as the raw
//! copy) and by an expansion ratio, so a decompression bomb stops early and
//! is flagged instead of being expanded into memory.

use std::io::Read;

/// Below this many decoded bytes the ratio bound does not apply (tiny bodies
/// with long runs compress extremely well and are harmless).
const RATIO_FLOOR: usize = 1 << 20;

/// The outcome of decoding a captured copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decoded {
    /// Decoded bytes (at most the cap).
    pub(crate) bytes: Vec<u8>,
    /// Whether the decoder stopped before the end (cap, ratio bound, or a truncated input).
    pub(crate) truncated: bool,
    /// Why decoding stopped early or failed, for the flow's `decode_error`.
    pub(crate) note: Option<String>,
    /// Whether decoding failed outright (`bytes` then holds the raw input).
    pub(crate) failed: bool,
}

/// Decodes `raw` sent with `Content-Encoding: encoding`.
///
/// `raw_complete` says whether `raw` is the whole body; a decoder hitting
/// the end of a capped copy is a truncation, not an error.
pub(crate) fn decode(
    encoding: &str,
    raw: &[u8],
    raw_complete: bool,
    cap: usize,
    max_ratio: usize,
) -> Decoded {
    let codings: Vec<String> = encoding
        .split(',')
        .map(|c| c.trim().to_ascii_lowercase())
        .filter(|c| !c.is_empty() && c != "identity")
        .collect();
    let mut current = raw.to_vec();
    let mut truncated = !raw_complete;
    let mut note = None;
    // Encodings apply in the order listed, so they are removed in reverse.
    for coding in codings.iter().rev() {
        let limit = cap.min(RATIO_FLOOR.max(current.len().saturating_mul(max_ratio)));
        let result = match coding.as_str() {
            "gzip" | "x-gzip" => {
                read_bounded(flate2::read::MultiGzDecoder::new(current.as_slice()), limit)
            }
            "deflate" => {
                let zlib = read_bounded(flate2::read::ZlibDecoder::new(current.as_slice()), limit);
                // Some servers send raw deflate without the zlib wrapper.
                if zlib.error.is_some() && zlib.bytes.is_empty() {
                    read_bounded(flate2::read::DeflateDecoder::new(current.as_slice()), limit)
                } else {
                    zlib
                }
            }
            "br" => read_bounded(brotli::Decompressor::new(current.as_slice(), 4096), limit),
            "zstd" => match zstd::stream::read::Decoder::new(current.as_slice()) {
                Ok(decoder) => read_bounded(decoder, limit),
                Err(e) => Bounded {
                    bytes: Vec::new(),
                    hit_limit: false,
                    error: Some(e.to_string()),
                },
            },
            other => {
                return Decoded {
                    bytes: raw.to_vec(),
                    truncated: !raw_complete,
                    note: Some(format!(
                        "unsupported content-encoding {other:?}; raw bytes kept"
                    )),
                    failed: true,
                };
            }
        };
        if let Some(error) = result.error {
            if truncated {
                // The copy was capped: running out of input mid-stream is expected.
            } else if result.bytes.is_empty() {
                return Decoded {
                    bytes: raw.to_vec(),
                    truncated: !raw_complete,
                    note: Some(format!("{coding} decoding failed: {error}; raw bytes kept")),
                    failed: true,
                };
            } else {
                truncated = true;
                note = Some(format!(
                    "{coding} decoding stopped after {} bytes: {error}",
                    result.bytes.len()
                ));
            }
        }
        if result.hit_limit {
            truncated = true;
            if limit < cap {
                note = Some(format!(
                    "{coding} decoding stopped at {limit} bytes: more than {max_ratio}x the {} encoded bytes (possible decompression bomb)",
                    current.len()
                ));
            }
        }
        current = result.bytes;
    }
    Decoded {
        bytes: current,
        truncated,
        note,
        failed: false,
    }
}

struct Bounded {
    bytes: Vec<u8>,
    hit_limit: bool,
    error: Option<String>,
}

/// Reads at most `limit` bytes; `hit_limit` when more were available.
fn read_bounded(mut reader: impl Read, limit: usize) -> Bounded {
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    loop {
        match reader.read(&mut chunk) {
            Ok(0) => {
                return Bounded {
                    bytes,
                    hit_limit: false,
                    error: None,
                };
            }
            Ok(n) => {
                let room = limit - bytes.len();
                if n > room {
                    bytes.extend_from_slice(&chunk[..room]);
                    return Bounded {
                        bytes,
                        hit_limit: true,
                        error: None,
                    };
                }
                bytes.extend_from_slice(&chunk[..n]);
                if bytes.len() == limit {
                    // Exactly at the limit: find out whether anything follows.
                    let more = matches!(reader.read(&mut chunk[..1]), Ok(n) if n > 0);
                    return Bounded {
                        bytes,
                        hit_limit: more,
                        error: None,
                    };
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                return Bounded {
                    bytes,
                    hit_limit: false,
                    error: Some(e.to_string()),
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    fn brotli(data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut enc = brotli::CompressorWriter::new(&mut out, 4096, 5, 22);
        enc.write_all(data).unwrap();
        drop(enc);
        out
    }

    #[test]
    fn each_encoding_round_trips() {
        let text = br#"{"items":[1,2,3],"name":"ar"}"#.repeat(50);
        assert_eq!(decode("gzip", &gzip(&text), true, 1 << 20, 100).bytes, text);
        assert_eq!(decode("br", &brotli(&text), true, 1 << 20, 100).bytes, text);
        let z = zstd::encode_all(text.as_slice(), 3).unwrap();
        assert_eq!(decode("zstd", &z, true, 1 << 20, 100).bytes, text);
        let mut zl = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        zl.write_all(&text).unwrap();
        assert_eq!(
            decode("deflate", &zl.finish().unwrap(), true, 1 << 20, 100).bytes,
            text
        );
        let mut raw =
            flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        raw.write_all(&text).unwrap();
        assert_eq!(
            decode("deflate", &raw.finish().unwrap(), true, 1 << 20, 100).bytes,
            text
        );
    }

    #[test]
    fn stacked_encodings_are_removed_in_reverse() {
        let text = b"hello stacked world".repeat(10);
        let both = brotli(&gzip(&text));
        let out = decode("gzip, br", &both, true, 1 << 20, 100);
        assert_eq!(out.bytes, text);
        assert!(!out.truncated);
    }

    #[test]
    fn a_bomb_stops_at_the_ratio_bound_and_is_flagged() {
        let bomb = gzip(&vec![0u8; 64 << 20]);
        assert!(bomb.len() < 100_000);
        let out = decode("gzip", &bomb, true, 32 << 20, 100);
        assert_eq!(out.bytes.len(), RATIO_FLOOR.max(bomb.len() * 100));
        assert!(out.truncated);
        assert!(out.note.unwrap().contains("decompression bomb"));
    }

    #[test]
    fn brotli_zstd_and_stacked_bombs_stop_at_the_same_bound() {
        // 64 MiB of zeros each, a few KiB encoded; gzip of gzip expands in two layers.
        let zeros = vec![0u8; 64 << 20];
        let br = brotli(&zeros);
        let zstd = zstd::encode_all(zeros.as_slice(), 3).unwrap();
        let stacked = gzip(&gzip(&zeros));
        drop(zeros);
        for (encoding, bomb) in [("br", &br), ("zstd", &zstd), ("gzip, gzip", &stacked)] {
            let out = decode(encoding, bomb, true, 32 << 20, 100);
            assert!(out.truncated, "{encoding}");
            assert!(
                out.bytes.len() <= 32 << 20,
                "{encoding}: {}",
                out.bytes.len()
            );
            let note = out.note.unwrap_or_default();
            assert!(note.contains("decompression bomb"), "{encoding}: {note}");
        }
    }

    #[test]
    fn output_is_capped_without_calling_it_a_bomb() {
        let text: Vec<u8> = (0..200_000u32).flat_map(|i| i.to_le_bytes()).collect();
        let out = decode("gzip", &gzip(&text), true, 1000, 100);
        assert_eq!(out.bytes.len(), 1000);
        assert!(out.truncated);
        assert!(out.note.is_none());
    }

    #[test]
    fn garbage_keeps_raw_bytes_and_says_why() {
        let out = decode("gzip", b"not gzip at all", true, 1 << 20, 100);
        assert!(out.failed);
        assert_eq!(out.bytes, b"not gzip at all");
        assert!(out.note.unwrap().contains("gzip decoding failed"));
        assert!(decode("compress", b"x", true, 10, 100).failed);
    }

    #[test]
    fn a_capped_copy_decodes_its_prefix() {
        let text: Vec<u8> = (0..100_000u32).flat_map(|i| i.to_le_bytes()).collect();
        let gz = gzip(&text);
        let out = decode("gzip", &gz[..gz.len() / 2], false, 1 << 20, 100);
        assert!(out.truncated);
        assert!(!out.failed);
        assert!(!out.bytes.is_empty());
        assert_eq!(&text[..out.bytes.len()], out.bytes.as_slice());
    }
}
