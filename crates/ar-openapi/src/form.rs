//! Decoding of `application/x-www-form-urlencoded` and `multipart/form-data`
//! bodies into named fields, so form requests document their fields just as
//! JSON requests do. Never panics on malformed input: unparsable parts are
//! skipped.

use ar_flow::url::percent_decode;

/// Splits `a=1&b=x%20y` into decoded `(name, value)` pairs, in order.
pub(crate) fn parse_urlencoded(text: &str) -> Vec<(String, String)> {
    text.split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            (
                percent_decode(name).into_owned(),
                percent_decode(value).into_owned(),
            )
        })
        .collect()
}

/// One part of a `multipart/form-data` body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Part {
    /// The form field name.
    pub(crate) name: String,
    /// The file name, when the part is a file upload.
    pub(crate) filename: Option<String>,
    /// The part's own content type, if given.
    pub(crate) content_type: Option<String>,
    /// The part's content as text, when it is a text field (not a file) and UTF-8.
    pub(crate) text: Option<String>,
}

/// The `boundary` parameter of a multipart content type.
pub(crate) fn boundary(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|param| {
        let (key, value) = param.split_once('=')?;
        key.trim()
            .eq_ignore_ascii_case("boundary")
            .then(|| value.trim().trim_matches('"').to_string())
    })
}

/// Parses a multipart body into parts. Bodies cut short (captured with a cap)
/// yield the parts that were complete enough to have a header.
pub(crate) fn parse_multipart(content_type: &str, body: &[u8]) -> Vec<Part> {
    let Some(boundary) = boundary(content_type) else {
        return Vec::new();
    };
    let delimiter = format!("--{boundary}");
    let mut parts = Vec::new();
    let mut sections = split_bytes(body, delimiter.as_bytes());
    sections.remove(0); // the preamble before the first delimiter
    for section in sections {
        if section.starts_with(b"--") {
            break; // closing delimiter
        }
        let section = section.strip_prefix(b"\r\n").unwrap_or(section);
        let Some(head_end) = find(section, b"\r\n\r\n") else {
            continue;
        };
        let head = String::from_utf8_lossy(&section[..head_end]);
        let content = &section[head_end + 4..];
        let content = content.strip_suffix(b"\r\n").unwrap_or(content);
        let mut name = None;
        let mut filename = None;
        let mut part_type = None;
        for line in head.lines() {
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            if key.trim().eq_ignore_ascii_case("content-disposition") {
                for param in value.split(';').skip(1) {
                    let Some((k, v)) = param.split_once('=') else {
                        continue;
                    };
                    let v = v.trim().trim_matches('"').to_string();
                    match k.trim().to_ascii_lowercase().as_str() {
                        "name" => name = Some(v),
                        "filename" => filename = Some(v),
                        _ => {}
                    }
                }
            } else if key.trim().eq_ignore_ascii_case("content-type") {
                part_type = Some(value.trim().to_string());
            }
        }
        let Some(name) = name else { continue };
        let text = if filename.is_none() {
            std::str::from_utf8(content).ok().map(str::to_string)
        } else {
            None
        };
        parts.push(Part {
            name,
            filename,
            content_type: part_type,
            text,
        });
    }
    parts
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || haystack.len() < needle.len() {
        return None;
    }
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

fn split_bytes<'a>(haystack: &'a [u8], needle: &[u8]) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut rest = haystack;
    while let Some(at) = find(rest, needle) {
        out.push(&rest[..at]);
        rest = &rest[at + needle.len()..];
    }
    out.push(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urlencoded_pairs_keep_order_and_empty_values() {
        assert_eq!(
            parse_urlencoded("q=red+shoes&page=2&flag"),
            vec![
                ("q".into(), "red shoes".into()),
                ("page".into(), "2".into()),
                ("flag".into(), String::new())
            ]
        );
    }

    #[test]
    fn multipart_parts_have_names_files_and_text() {
        let body = b"--XyZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nHoliday\r\n--XyZ\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n--XyZ--\r\n";
        let parts = parse_multipart("multipart/form-data; boundary=\"XyZ\"", body);
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].name, "title");
        assert_eq!(parts[0].text.as_deref(), Some("Holiday"));
        assert_eq!(parts[1].filename.as_deref(), Some("a.png"));
        assert_eq!(parts[1].content_type.as_deref(), Some("image/png"));
        assert!(parts[1].text.is_none());
    }

    #[test]
    fn multipart_without_boundary_or_truncated_is_harmless() {
        assert!(parse_multipart("multipart/form-data", b"--a\r\n").is_empty());
        assert!(
            parse_multipart("multipart/form-data; boundary=a", b"--a\r\nContent-Disp").is_empty()
        );
    }
}
