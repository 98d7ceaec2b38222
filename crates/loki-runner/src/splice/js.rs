//! JS/TS: vitest in-source blocks.

use tree_sitter::Node;

use super::walk::Walk;
use super::{After, Insert, ItemKind, Place, Slot, named_children};

impl Walk<'_> {
    pub(super) fn js_program(&mut self, root: Node) {
        let len = self.src.len();
        self.out.containers.insert(
            String::new(),
            Insert {
                at: len,
                eol_before: len > 0 && !self.src.ends_with(b"\n"),
                after: After::EolIfMissing,
            },
        );
        for kid in named_children(root) {
            if kid.kind() != "if_statement" {
                continue;
            }
            let in_source = kid
                .child_by_field_name("condition")
                .is_some_and(|c| self.compact(c).contains("import.meta.vitest"));
            if in_source {
                let key = self.item_key("vitest".into());
                let range = self.lines(kid.start_byte(), kid.end_byte());
                self.push(Slot {
                    key,
                    kind: ItemKind::InSource,
                    range,
                    test: true,
                    place: Place::Append(String::new()),
                    tangled: false,
                    removable: true,
                });
            }
        }
    }
}
