//! The HTTP methods an OpenAPI 3.0/3.1 path item can hold.

use std::fmt;

use serde::{Serialize, Serializer};

/// An HTTP method that a path item can document.
///
/// The order (`Ord`) is the order OpenAPI lists them in a path item, which is also the order
/// operations of one path are reported in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Method {
    /// `GET`
    Get,
    /// `PUT`
    Put,
    /// `POST`
    Post,
    /// `DELETE`
    Delete,
    /// `OPTIONS`
    Options,
    /// `HEAD`
    Head,
    /// `PATCH`
    Patch,
    /// `TRACE`
    Trace,
}

impl Method {
    /// Every method, in path-item order.
    pub const ALL: [Method; 8] = [
        Method::Get,
        Method::Put,
        Method::Post,
        Method::Delete,
        Method::Options,
        Method::Head,
        Method::Patch,
        Method::Trace,
    ];

    /// The method named `name`, in any case (`get`, `GET`); `None` for anything else.
    pub fn parse(name: &str) -> Option<Method> {
        Method::ALL
            .into_iter()
            .find(|m| m.as_str().eq_ignore_ascii_case(name))
    }

    /// The method as written on the wire: `GET`, `POST`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Put => "PUT",
            Method::Post => "POST",
            Method::Delete => "DELETE",
            Method::Options => "OPTIONS",
            Method::Head => "HEAD",
            Method::Patch => "PATCH",
            Method::Trace => "TRACE",
        }
    }

    /// The key of this method in an OpenAPI path item: `get`, `post`, ...
    pub(crate) fn path_item_key(self) -> &'static str {
        match self {
            Method::Get => "get",
            Method::Put => "put",
            Method::Post => "post",
            Method::Delete => "delete",
            Method::Options => "options",
            Method::Head => "head",
            Method::Patch => "patch",
            Method::Trace => "trace",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Method {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_any_case_and_refuses_others() {
        assert_eq!(Method::parse("get"), Some(Method::Get));
        assert_eq!(Method::parse("PaTcH"), Some(Method::Patch));
        assert_eq!(Method::parse("QUERY"), None);
        assert_eq!(Method::parse(""), None);
    }

    #[test]
    fn path_item_order() {
        let mut methods = vec![Method::Delete, Method::Get, Method::Post];
        methods.sort();
        assert_eq!(methods, [Method::Get, Method::Post, Method::Delete]);
        assert_eq!(Method::Options.to_string(), "OPTIONS");
        assert_eq!(Method::Head.path_item_key(), "head");
    }
}
