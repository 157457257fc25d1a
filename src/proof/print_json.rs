//! The `--proof=json` format: one JSON object per answer, on one line:
//!
//! ```text
//! {"answer": {"X": "term", ...}, "proof": NODE}
//! NODE = {"rule": R, "goal": "printed goal", [details,] "children": [NODE, ...]}
//! ```
//!
//! R is one of `atom`, `builtin`, `one`, `erase`, `bang`, `tensor`, `with`,
//! `lolli`, `imp`, `forall`, `exists`, `or_left`, `or_right`, `guard`.
//! Details, between `goal` and `children`, where they apply:
//! - `"clause": {"file": F, "line": N, "instance": "printed clause"}` on
//!   every atom node (`file` and `line` are `null` for an assumed clause);
//! - `"consumed": ["printed resource", ...]` on atom nodes that used a linear
//!   resource and on every erase node (what it swallowed, maybe `[]`);
//! - `"assumed": ["printed clause", ...]` on every lolli and imp node;
//! - `"witness": "printed term"` on forall nodes (the fresh constant) and
//!   exists nodes.
//!
//! Strings are escaped per RFC 8259 (`"`, `\`, and control characters).
//! The JSON is written by hand: the schema is small and fixed, and a
//! serializer crate would add a dependency for twenty lines.

use super::tree::{Node, Proof, Resource, RuleName};

/// One line of JSON (without the newline) for an answer and its proof.
pub fn json(answer: &[(String, String)], proof: &Proof) -> String {
    let mut out = String::from("{\"answer\": {");
    for (i, (name, value)) in answer.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        string(&mut out, name);
        out.push_str(": ");
        string(&mut out, value);
    }
    out.push_str("}, \"proof\": ");
    node(&mut out, &proof.root);
    out.push('}');
    out
}

fn node(out: &mut String, n: &Node) {
    crate::util::deep(|| {
        out.push_str("{\"rule\": ");
        string(out, n.rule.as_str());
        out.push_str(", \"goal\": ");
        string(out, &n.goal_text);
        if let Some(c) = &n.clause {
            out.push_str(", \"clause\": {\"file\": ");
            match &c.origin {
                Some((file, line)) => {
                    string(out, file);
                    out.push_str(&format!(", \"line\": {line}"));
                }
                None => out.push_str("null, \"line\": null"),
            }
            out.push_str(", \"instance\": ");
            string(out, &c.instance_text);
            out.push('}');
        }
        if n.rule == RuleName::Erase || (n.rule == RuleName::Atom && !n.consumed.is_empty()) {
            out.push_str(", \"consumed\": ");
            list(out, &n.consumed);
        }
        if matches!(n.rule, RuleName::Lolli | RuleName::Imp) {
            out.push_str(", \"assumed\": ");
            list(out, &n.assumed);
        }
        if let Some(w) = &n.witness {
            out.push_str(", \"witness\": ");
            string(out, &w.text);
        }
        out.push_str(", \"children\": [");
        for (i, c) in n.children.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            node(out, c);
        }
        out.push_str("]}");
    })
}

fn list(out: &mut String, rs: &[Resource]) {
    out.push('[');
    for (i, r) in rs.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        string(out, &r.text);
    }
    out.push(']');
}

/// Append `s` as a JSON string literal.
pub fn string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped() {
        let mut s = String::new();
        string(&mut s, "a\"b\\c\nd\u{1}é");
        assert_eq!(s, r#""a\"b\\c\nd\u0001é""#);
    }
}
