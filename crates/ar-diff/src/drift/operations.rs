//! What a drift keeps of each operation flows call, read out of the document on its first
//! call: which object it is (what [`Contracts`](super::contract::Contracts) knows it by),
//! whether it is deprecated, and its query and header parameters ([`Documented`]).
//!
//! Finding the operation object from the matcher's template and method costs a look-up in
//! `paths` and in the path item, and its parameters a walk of both lists with their
//! references: as much, for each flow, as checking what the flow sent. The document never
//! changes while a drift holds it, so what it says of an operation is read once, and found
//! again by the operation's place in the document, which the matcher hands over (a look-up
//! by template and method hashed the template for each flow).

use super::params::{Credentials, Documented};
use crate::document::{Document, Operation};

/// The operations called so far, by their place in [`Document::operations`].
#[derive(Clone, Debug, Default)]
pub(super) struct Operations {
    /// At each place, the operation there once a flow called it.
    known: Vec<Option<KnownOperation>>,
}

/// One operation, as the checks of each flow that calls it read it.
#[derive(Clone, Debug)]
pub(super) struct KnownOperation {
    /// The address of its object in the document: what the contracts know it by.
    pub(super) key: usize,
    pub(super) deprecated: bool,
    pub(super) parameters: Documented,
    /// Whether a flow called it before this one.
    pub(super) called: bool,
}

impl Operations {
    /// The operation at `place` in the document's operations, read out of `found` (the
    /// operation, when the document has it) the first time it is asked for.
    pub(super) fn get_or_read<'d>(
        &mut self,
        document: &'d Document,
        place: usize,
        credentials: &Credentials,
        found: impl FnOnce() -> Option<Operation<'d>>,
    ) -> Option<&mut KnownOperation> {
        if self.known.get(place).is_some_and(Option::is_some) {
            return self.known[place].as_mut();
        }
        let operation = found()?;
        if self.known.len() <= place {
            self.known.resize_with(place + 1, || None);
        }
        let known = self.known[place].insert(KnownOperation {
            key: std::ptr::from_ref(operation.value()).addr(),
            deprecated: operation.deprecated(),
            parameters: Documented::of(document, &operation, credentials),
            called: false,
        });
        Some(known)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::method::Method;

    #[test]
    fn each_operation_is_read_once_and_found_again_by_its_place() {
        let document = Document::from_value(json!({
            "openapi": "3.0.3",
            "paths": {
                "/users/{id}": {"get": {}, "delete": {"deprecated": true}},
                "/users/me": {"$ref": "#/components/pathItems/Me"}
            },
            "components": {"pathItems": {"Me": {"get": {}}}}
        }))
        .unwrap();
        let credentials = Credentials::of(&document);
        let mut operations = Operations::default();
        let reads = std::cell::Cell::new(0);
        let mut read = |place: usize, template: &str, method: Method| {
            let found = || {
                reads.set(reads.get() + 1);
                document.operation(method, template)
            };
            operations
                .get_or_read(&document, place, &credentials, found)
                .map(|known| (known.key, known.deprecated))
        };
        let key = |template, method| {
            let operation = document.operation(method, template).unwrap();
            std::ptr::from_ref(operation.value()).addr()
        };
        let calls = [
            ("/users/{id}", Method::Get),
            ("/users/{id}", Method::Delete),
            ("/users/me", Method::Get),
        ];
        for _ in 0..2 {
            // Called in another order than the places, the last place first.
            for (place, (template, method)) in calls.into_iter().enumerate().rev() {
                let deprecated = method == Method::Delete;
                assert_eq!(
                    read(place, template, method),
                    Some((key(template, method), deprecated))
                );
            }
        }
        assert_eq!(reads.get(), 3, "each read once");
        assert_eq!(read(5, "/users/{id}", Method::Put), None);
        assert_eq!(read(5, "/users/{id}", Method::Put), None);
        assert_eq!(
            reads.get(),
            5,
            "nothing kept for an operation the document lacks"
        );
        assert_ne!(
            key("/users/{id}", Method::Get),
            key("/users/me", Method::Get)
        );
    }
}
