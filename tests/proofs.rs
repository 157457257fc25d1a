//! Proof terms: the recorded derivations, their printers, `--moves`, and the
//! independent checker (on every proof of a formula suite, on the triangle
//! programs, and on tampered proofs).

mod common;

use std::collections::HashMap;
use std::path::PathBuf;

use lolli::engine::BufferHost;
use lolli::proof::{moves, print_dot, print_json, print_latex, print_tree};
use lolli::proof::{Node, Problem, Proof, RuleName, Term};
use lolli::{Options, Session};
use pretty_assertions::assert_eq;

fn session() -> Session {
    let options = Options {
        proofs: true,
        ..Options::default()
    };
    Session::with_options(options, Box::new(BufferHost::default()))
}

fn program(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("programs")
        .join(name)
}

/// Every answer of `goal` (at most `limit`) with its bindings and proof.
fn proofs(s: &mut Session, goal: &str, limit: usize) -> Vec<(Vec<(String, String)>, Proof)> {
    let mut q = s.query(goal).expect("the goal parses");
    let mut out = Vec::new();
    while out.len() < limit {
        match q.next_answer().expect("no runtime error") {
            Some(a) => {
                let p = q.proof().expect("a proof is recorded");
                out.push((a.bindings, p));
            }
            None => break,
        }
    }
    out
}

fn proofs_of(goal: &str) -> Vec<Proof> {
    proofs(&mut session(), goal, usize::MAX)
        .into_iter()
        .map(|(_, p)| p)
        .collect()
}

fn check_all(goal: &str, expected: usize) -> Vec<Proof> {
    let ps = proofs_of(goal);
    assert_eq!(ps.len(), expected, "number of proofs of {goal}");
    for (i, p) in ps.iter().enumerate() {
        if let Err(e) = p.check() {
            panic!("proof {i} of {goal} rejected: {e}\n{}", print_tree::tree(p));
        }
    }
    ps
}

fn texts(rs: &[lolli::proof::Resource]) -> Vec<&str> {
    rs.iter().map(|r| r.text.as_str()).collect()
}

// ---------------------------------------------------------------------------
// The recorded tree

#[test]
fn tree_of_a_lolli_b_lolli_a_tensor_b_node_by_node() {
    let ps = check_all("a -o b -o (a , b)", 1);
    let root = &ps[0].root;
    assert_eq!(root.rule, RuleName::Lolli);
    assert_eq!(root.goal_text, "a -o b -o (a, b)");
    assert_eq!(texts(&root.assumed), ["a"]);
    assert!(root.assumed[0].linear);
    assert_eq!(root.children.len(), 1);

    let inner = &root.children[0];
    assert_eq!(inner.rule, RuleName::Lolli);
    assert_eq!(inner.goal_text, "b -o (a, b)");
    assert_eq!(texts(&inner.assumed), ["b"]);
    assert_eq!(inner.children.len(), 1);

    let tensor = &inner.children[0];
    assert_eq!(tensor.rule, RuleName::Tensor);
    assert_eq!(tensor.goal_text, "a, b");
    assert!(tensor.assumed.is_empty() && tensor.consumed.is_empty());
    assert_eq!(tensor.children.len(), 2);

    for (child, name) in tensor.children.iter().zip(["a", "b"]) {
        assert_eq!(child.rule, RuleName::Atom);
        assert_eq!(child.goal, Term::Atom(name.into()));
        assert_eq!(texts(&child.consumed), [name]);
        let clause = child.clause.as_ref().expect("an atom names its clause");
        assert_eq!(clause.instance_text, name);
        assert_eq!(clause.origin, None);
        assert!(child.children.is_empty());
    }
    // Each atom used the resource its lolli assumed.
    assert_eq!(tensor.children[0].consumed[0].entry, root.assumed[0].entry);
    assert_eq!(tensor.children[1].consumed[0].entry, inner.assumed[0].entry);

    assert_eq!(
        print_tree::tree(&ps[0]),
        "lolli a -o b -o (a, b)   assumed: a\n\
         \x20 lolli b -o (a, b)   assumed: b\n\
         \x20   tensor a, b\n\
         \x20     atom a   consumed: a\n\
         \x20     atom b   consumed: b\n"
    );
}

#[test]
fn tree_names_program_clauses_and_witnesses() {
    let mut s = session();
    s.load_str("t.lolli", "p X :- q X.\nLINEAR q 1.\n").unwrap();
    let ps = proofs(&mut s, "exists y \\ p y", 9);
    assert_eq!(ps.len(), 1);
    ps[0].1.check().unwrap();
    assert_eq!(
        print_tree::tree(&ps[0].1),
        "exists exists y \\ p y   witness: 1\n\
         \x20 atom p 1   clause: t.lolli:1\n\
         \x20   atom q 1   consumed: q 1   clause: t.lolli:2\n"
    );
    let program: Vec<&str> = texts(&ps[0].1.program);
    assert_eq!(program, ["q 1", "p X :- q X"]);
}

/// A query variable that a module's parameter was bound to shows by its
/// one name on the atom and in what the atom consumed (tester-s12 point
/// 12: `atom cnt key_1 N   consumed: cnt key_1 _1`); a variable the
/// proof numbers keeps its number from line to line.
#[test]
fn a_variable_met_in_a_module_clause_keeps_its_name() {
    let mut s = session();
    s.load_str(
        "counter.lolli",
        "MODULE counter Start.\nLOCAL cnt.\nLINEAR cnt k Start.\nget N :- cnt k N.\n",
    )
    .unwrap();
    let ps = proofs(&mut s, "get N, erase", 1);
    ps[0].1.check().unwrap();
    assert_eq!(
        print_tree::tree(&ps[0].1),
        "tensor get N, erase\n\
         \x20 atom get N   clause: counter.lolli:4\n\
         \x20   atom cnt_1 k N   consumed: cnt_1 k N   clause: counter.lolli:3\n\
         \x20 erase\n"
    );
    let ps = proofs(&mut s, "get (f _ _), erase", 1);
    assert_eq!(
        print_tree::tree(&ps[0].1),
        "tensor get (f _1 _2), erase\n\
         \x20 atom get (f _1 _2)   clause: counter.lolli:4\n\
         \x20   atom cnt_1 k (f _1 _2)   consumed: cnt_1 k (f _1 _2)   clause: counter.lolli:3\n\
         \x20 erase\n"
    );
}

#[test]
fn an_assumption_shows_its_quantifiers_and_what_is_unbounded() {
    // Printed `p X`, a quantified clause would read as an assumed `p X`,
    // whose `X` every use shares (LANGUAGE.md, section 3); printed `a`, a
    // part written `{a}` would read as linear.
    let tree = |goal: &str| {
        let ps = check_all(goal, 1);
        print_tree::tree(&ps[0])
    };
    assert_eq!(
        tree("(forall x \\ p x) => (p a , p b)"),
        "imp (forall x \\ p x) => (p a, p b)   assumed: (forall x \\ p x)\n\
         \x20 tensor p a, p b\n\
         \x20   atom p a   clause: p a\n\
         \x20   atom p b   clause: p b\n"
    );
    assert_eq!(
        tree("({a} , b) -o (a , a , b)"),
        "lolli ({a}, b) -o (a, a, b)   assumed: {a}, b\n\
         \x20 tensor a, a, b\n\
         \x20   tensor a, a\n\
         \x20     atom a   clause: a\n\
         \x20     atom a   clause: a\n\
         \x20   atom b   consumed: b\n"
    );
    // A consumed resource shows as it was assumed; the bound names are the
    // source's, also where they are capitals.
    assert_eq!(
        tree("(forall x \\ forall Y \\ q x Y) -o q a b"),
        "lolli (forall x \\ forall Y \\ q x Y) -o q a b   \
         assumed: (forall x \\ forall Y \\ q x Y)\n\
         \x20 atom q a b   consumed: (forall x \\ forall Y \\ q x Y)\n"
    );
    // `G :- D` assumes as `D -o G` does; in `=>` every part is unbounded
    // and shows without braces; the query's variables show as the answer
    // has them.
    let ps = proofs(&mut session(), "q Z :- (c, (forall x \\ q x :- c), {r})", 9);
    assert_eq!(ps.len(), 1);
    ps[0].1.check().unwrap();
    assert_eq!(
        texts(&ps[0].1.root.assumed),
        ["c", "forall x \\ q x :- c", "{r}"]
    );
    assert_eq!(
        print_tree::line(&ps[0].1.root),
        "lolli q Z :- c, (forall x \\ q x :- c), {r}   assumed: c, (forall x \\ q x :- c), {r}"
    );
    let ps = check_all("((forall x \\ p x Y) , {p b c}) => p a Y", 1);
    assert_eq!(texts(&ps[0].root.assumed), ["forall x \\ p x Y", "p b c"]);
    // JSON lists the same texts.
    let ps = proofs(&mut session(), "({a} , (forall x \\ p x)) -o (a , p b)", 9);
    let json = print_json::json(&ps[0].0, &ps[0].1);
    assert!(
        json.starts_with(
            r#"{"answer": {}, "proof": {"rule": "lolli", "goal": "({a}, (forall x \\ p x)) -o (a, p b)", "assumed": ["{a}", "forall x \\ p x"], "#
        ),
        "{json}"
    );
    assert!(
        json.contains(r#""consumed": ["forall x \\ p x"]"#),
        "{json}"
    );
}

// ---------------------------------------------------------------------------
// JSON, LaTeX and DOT

#[test]
fn json_schema_on_a_small_example() {
    let ps = proofs(&mut session(), "a -o b -o (a , b)", 9);
    assert_eq!(
        print_json::json(&ps[0].0, &ps[0].1),
        r#"{"answer": {}, "proof": {"rule": "lolli", "goal": "a -o b -o (a, b)", "assumed": ["a"], "children": [{"rule": "lolli", "goal": "b -o (a, b)", "assumed": ["b"], "children": [{"rule": "tensor", "goal": "a, b", "children": [{"rule": "atom", "goal": "a", "clause": {"file": null, "line": null, "instance": "a"}, "consumed": ["a"], "children": []}, {"rule": "atom", "goal": "b", "clause": {"file": null, "line": null, "instance": "b"}, "consumed": ["b"], "children": []}]}]}]}}"#
    );
}

#[test]
fn json_with_bindings_files_erase_and_witness() {
    let mut s = session();
    s.load_str("t.lolli", "p X :- q X.\nLINEAR q \"one\".\nLINEAR r.\n")
        .unwrap();
    let ps = proofs(&mut s, "p X, erase", 9);
    assert_eq!(ps.len(), 1);
    ps[0].1.check().unwrap();
    assert_eq!(
        print_json::json(&ps[0].0, &ps[0].1),
        r#"{"answer": {"X": "\"one\""}, "proof": {"rule": "tensor", "goal": "p \"one\", erase", "children": [{"rule": "atom", "goal": "p \"one\"", "clause": {"file": "t.lolli", "line": 1, "instance": "p \"one\" :- q \"one\""}, "children": [{"rule": "atom", "goal": "q \"one\"", "clause": {"file": "t.lolli", "line": 2, "instance": "q \"one\""}, "consumed": ["q \"one\""], "children": []}]}, {"rule": "erase", "goal": "erase", "consumed": ["r"], "children": []}]}}"#
    );
    let ps = proofs(&mut session(), "forall x \\ (p x -o p x)", 9);
    let json = print_json::json(&ps[0].0, &ps[0].1);
    assert!(
        json.starts_with(r#"{"answer": {}, "proof": {"rule": "forall", "goal": "forall x \\ p x -o p x", "witness": "x_0", "children": [{"rule": "lolli""#),
        "{json}"
    );
}

/// A session with programs/reverse.lolli (a predicate local to a goal).
fn reverse_session() -> Session {
    let mut s = session();
    s.load_file(program("reverse.lolli"))
        .expect("reverse.lolli loads");
    s
}

#[test]
fn a_forall_constant_that_names_a_predicate_is_checked_as_fresh() {
    // The constant is a symbol (the context finds clauses by symbol); the
    // checker takes it as fresh as it takes an eigenvariable.
    for goal in [
        "forall p \\ (p a -o p a)",
        "forall p \\ (p -o p)",
        "forall p \\ ((p a , p b) => (p b , p a))",
    ] {
        let ps = check_all(goal, 1);
        assert_eq!(ps[0].root.rule, RuleName::Forall, "{goal}");
    }
    let mut s = reverse_session();
    let ps = proofs(&mut s, "reverse (a :: b :: nil) K", 9);
    assert_eq!(ps.len(), 1);
    assert_eq!(ps[0].0, [("K".to_string(), "b :: a :: nil".to_string())]);
    ps[0].1.check().unwrap();
    let forall = &ps[0].1.root.children[0];
    assert_eq!(
        print_tree::line(forall),
        "forall forall rv \\ (forall X \\ forall M \\ forall N \\ rv (X :: M) N :- rv M (X :: N)) \
         => rv nil (b :: a :: nil) -o rv (a :: b :: nil) nil   fresh: rv_1"
    );
    // The symbols are taken again, oldest first, by a second query.
    let fresh = |p: &Proof| -> Vec<String> {
        p.root
            .preorder()
            .into_iter()
            .filter(|(_, n)| n.rule == RuleName::Forall)
            .map(|(_, n)| n.witness.as_ref().unwrap().text.clone())
            .collect()
    };
    for _ in 0..2 {
        let ps = proofs(&mut s, "reverse (a :: nil) K, reverse (b :: nil) M", 9);
        assert_eq!(fresh(&ps[0].1), ["rv_1", "rv_2"]);
    }
}

#[test]
fn a_proof_renames_a_bound_name_that_would_capture_a_free_one() {
    // The `rv` in the list is the global constant, not the bound one.
    let mut s = reverse_session();
    let ps = proofs(&mut s, "reverse (rv :: nil) K", 9);
    assert_eq!(ps.len(), 1);
    ps[0].1.check().unwrap();
    let forall = &ps[0].1.root.children[0];
    assert_eq!(
        print_tree::line(forall),
        "forall forall rv2 \\ (forall X \\ forall M \\ forall N \\ rv2 (X :: M) N :- rv2 M (X :: N)) \
         => rv2 nil (rv :: nil) -o rv2 (rv :: nil) nil   fresh: rv_1"
    );
    // The checker's form of a term (`Display`) chooses alike.
    assert_eq!(
        forall.goal.to_string(),
        "forall rv2 \\ ((forall X \\ (forall M \\ (forall N \\ \
         (('$apply' rv2 (X :: M) N) :- ('$apply' rv2 M (X :: N)))))) \
         => (('$apply' rv2 nil (rv :: nil)) -o ('$apply' rv2 (rv :: nil) nil)))"
    );
}

#[test]
fn a_proof_quotes_bound_names_and_fresh_constants_as_names_are_quoted() {
    let ps = check_all("forall 'my pred' \\ ('my pred' a -o 'my pred' a)", 1);
    assert_eq!(
        print_tree::tree(&ps[0]),
        "forall forall 'my pred' \\ 'my pred' a -o 'my pred' a   fresh: 'my pred_1'\n\
         \x20 lolli 'my pred_1' a -o 'my pred_1' a   assumed: 'my pred_1' a\n\
         \x20   atom 'my pred_1' a   consumed: 'my pred_1' a\n"
    );
    assert_eq!(
        ps[0].root.goal.to_string(),
        "forall 'my pred' \\ (('$apply' 'my pred' a) -o ('$apply' 'my pred' a))"
    );
    let ps = check_all("forall 'Abc' \\ (p 'Abc' -o p 'Abc')", 1);
    assert_eq!(
        print_tree::tree(&ps[0]),
        "forall forall Abc \\ p Abc -o p Abc   fresh: 'Abc_0'\n\
         \x20 lolli p 'Abc_0' -o p 'Abc_0'   assumed: p 'Abc_0'\n\
         \x20   atom p 'Abc_0'   consumed: p 'Abc_0'\n"
    );
    assert_eq!(
        ps[0].root.children[0].goal.to_string(),
        "(p 'Abc_0') -o (p 'Abc_0')"
    );
}

#[test]
fn latex_and_dot_of_a_small_proof() {
    let ps = proofs(&mut session(), "a -o b -o (a , b)", 9);
    let p = &ps[0].1;
    assert_eq!(
        print_latex::latex("yes", p),
        "% yes\n\\begin{prooftree}\n\
         \\AxiomC{}\n\\RightLabel{\\scriptsize atom}\n\\UnaryInfC{\\texttt{a} $\\vdash$ \\texttt{a}}\n\
         \\AxiomC{}\n\\RightLabel{\\scriptsize atom}\n\\UnaryInfC{\\texttt{b} $\\vdash$ \\texttt{b}}\n\
         \\RightLabel{\\scriptsize tensor}\n\\BinaryInfC{\\texttt{a}, \\texttt{b} $\\vdash$ \\texttt{a, b}}\n\
         \\RightLabel{\\scriptsize lolli}\n\\UnaryInfC{\\texttt{a} $\\vdash$ \\texttt{b -o (a, b)}}\n\
         \\RightLabel{\\scriptsize lolli}\n\\UnaryInfC{$\\vdash$ \\texttt{a -o b -o (a, b)}}\n\
         \\end{prooftree}\n"
    );
    assert_eq!(
        print_dot::dot("yes", 1, p),
        "// yes\ndigraph proof1 {\n  node [shape=box, fontname=\"monospace\"];\n\
         \x20 n0 [label=\"lolli a -o b -o (a, b)\\nassumed: a\"];\n\
         \x20 n0 -> n1;\n\
         \x20 n1 [label=\"lolli b -o (a, b)\\nassumed: b\"];\n\
         \x20 n1 -> n2;\n\
         \x20 n2 [label=\"tensor a, b\"];\n\
         \x20 n2 -> n3;\n\
         \x20 n2 -> n4;\n\
         \x20 n4 [label=\"atom b\\nconsumed: b\"];\n\
         \x20 n3 [label=\"atom a\\nconsumed: a\"];\n\
         }\n"
    );
}

#[test]
fn latex_groups_more_than_five_premises() {
    let mut s = session();
    // `(q :- G1) :- G2 ...`: a clause whose body is seven goals.
    s.load_str(
        "u.lolli",
        "q :- true :- true :- true :- true :- true :- true :- true.",
    )
    .unwrap();
    let ps = proofs(&mut s, "q", 1);
    ps[0].1.check().unwrap();
    assert_eq!(ps[0].1.root.children.len(), 7);
    let tex = print_latex::latex("yes", &ps[0].1);
    // Groups of two, two, two and one under a four-premise inference.
    assert_eq!(tex.matches("\\noLine\n\\BinaryInfC{}").count(), 3, "{tex}");
    assert!(
        tex.contains("\\RightLabel{\\scriptsize atom}\n\\QuaternaryInfC"),
        "{tex}"
    );
}

// ---------------------------------------------------------------------------
// The checker on every proof of the formula suite

#[test]
fn checker_accepts_every_proof_of_the_core_formula_suite() {
    check_all("a -o b -o (a , b)", 1);
    check_all("(a & b) -o a", 1);
    check_all("a => (a , a)", 1);
    check_all("(a & b) -o (a & b) -o ((a , a) & (a , b) & (b , b))", 8);
    check_all("a -o a -o a -o (a , erase)", 3);
    check_all("a -o b -o c -o (erase , erase)", 1);
}

#[test]
fn checker_accepts_proofs_with_every_rule() {
    // with and erase in either branch
    check_all("a -o b -o (erase & (a , b))", 1);
    check_all("a -o ((a , erase) & erase)", 1);
    check_all("a -o (a & erase)", 1);
    check_all("a -o b -o ((a , erase) & (b , erase))", 1);
    // bang, one, guards, disjunction
    check_all("{true}", 1);
    check_all("a -o ({true} , a)", 1);
    check_all("a -o (a -> true | fail)", 1);
    check_all("a -o (b -> fail | a)", 1);
    check_all("a -o (b ; a)", 1);
    check_all("a -o (a ; a)", 2);
    // quantifiers
    check_all("forall x \\ (p x -o p x)", 1);
    check_all("exists x \\ (p x -o p a)", 1);
    check_all("(forall x \\ p x) => (p a , p b)", 1);
    check_all("(forall x \\ p x) -o p a", 1);
    // resources with bodies, unbounded clauses, {} bodies
    check_all("(p :- q) -o q -o p", 1);
    check_all("(p :- q , r) -o r -o q -o p", 1);
    check_all("(p :- q) => (q -o p) , true", 1);
    check_all("(p :- q) => (q -o (p , true))", 1);
    check_all("(true => p) -o p", 1);
    check_all("{a} -o (a , a , a)", 1);
    check_all("(a , {b}) -o (a , b , b)", 1);
    // built-ins, with and without a goal
    check_all("X = f Y, Y = 1", 1);
    check_all("timing (a -o a) T", 1);
    check_all("F = p, (p 1 -o F 1)", 1);
    // once and between: one built-in step each; once's premise proves G
    check_all("between 1 4 X", 4);
    check_all("between 1 4 X, X > 2", 2);
    check_all("between 1 4 3", 1);
    check_all("a -o once (a ; a)", 1);
    check_all("a -o b -o (once (between 1 3 X , (a ; b)) , erase)", 1);
}

#[test]
fn checker_reads_a_variable_application_as_the_atom_it_denotes() {
    // An assumed clause whose head is `F a` with F bound (stored as
    // `'$apply' F a`) is the clause `p a`.
    check_all("F = p, F a => p a", 1);
    check_all("F = p, (F a) -o p X", 1);
    check_all("F = p, (F a :- q) -o q -o p a", 1);
    check_all("F = p b, (F a) -o p b a", 1);
    // Inside a head's arguments, and on the two sides of `=`.
    check_all("F = p, (q (F a) :- true) -o q (p a)", 1);
    check_all("F = f, X = F a b, X = f a b", 1);
    // Unbound, by currying; `(F a) b` is the one application `F a b`.
    check_all("X = F a b, X = f a b, F = f", 1);
    check_all("F a b = G b", 1);
    check_all("q (G b) -o q (F a b)", 1);
    check_all("member (F a) (f a :: g b a :: G c a :: nil)", 3);
    // In a program clause's body.
    let mut s = session();
    s.load_str("t.lolli", "r F :- F a -o p a.\n").unwrap();
    let all = proofs(&mut s, "r p", usize::MAX);
    assert_eq!(all.len(), 1);
    if let Err(e) = all[0].1.check() {
        panic!("rejected: {e}\n{}", print_tree::tree(&all[0].1));
    }
}

#[test]
fn once_and_between_are_single_steps_in_the_proof() {
    let ps = check_all("once (between 1 3 X)", 1);
    assert_eq!(
        print_tree::tree(&ps[0]),
        "builtin once (between 1 3 1)\n  builtin between 1 3 1\n"
    );
    let ps = check_all("between 1 3 X", 3);
    for (p, x) in ps.iter().zip(1..) {
        assert_eq!(print_tree::tree(p), format!("builtin between 1 3 {x}\n"));
    }
}

#[test]
fn checker_accepts_clauses_with_bodies_from_a_program() {
    let mut s = session();
    s.load_str(
        "t.lolli",
        "LINEAR coin 1. LINEAR coin 2. LINEAR coin 5.\n\
         pay 0.\n\
         pay N :- coin C, C =< N, M is N - C, pay M.\n\
         calm <= true.\n",
    )
    .unwrap();
    let all = proofs(&mut s, "pay 8", usize::MAX);
    assert_eq!(all.len(), 6);
    for (_, p) in &all {
        p.check().unwrap();
    }
    let calm = proofs(&mut s, "calm, erase", usize::MAX);
    assert_eq!(calm.len(), 1);
    calm[0].1.check().unwrap();
    assert_eq!(calm[0].1.root.children[0].children[0].rule, RuleName::Bang);
}

#[test]
fn deep_proofs_are_checked_and_printed() {
    let mut s = session();
    s.load_str("nat.lolli", "nat 0.\nnat N :- N > 0, M is N - 1, nat M.\n")
        .unwrap();
    let ps = proofs(&mut s, "nat 5000", 1);
    let p = &ps[0].1;
    // nat k is at depth 2 (5000 - k); the built-ins of nat 1 are the deepest.
    assert_eq!(p.root.depth(), 10001);
    p.check().unwrap();
    assert_eq!(moves::moves(p, "nat").len(), 5001);
    let json = print_json::json(&ps[0].0, p);
    // The path from the root to `nat 0` closes last.
    assert!(json.ends_with(&format!("{}}}", "]}".repeat(10001))));
    let latex = print_latex::latex("yes", p);
    assert_eq!(latex.matches("InfC").count(), p.root.nodes().len());
    // Cloned, compared and shown with `Debug` on the test's own thread.
    let copy = p.clone();
    assert!(copy == *p);
    assert_eq!(
        format!("{copy:?}").matches("Node {").count(),
        p.root.nodes().len()
    );
}

// ---------------------------------------------------------------------------
// The triangle

const THIRTEEN: &str = "jump (s (s (s (s (s (s (s (s (s (s (s (s (s z)))))))))))))";
const SOLITAIRE2_QUERY: &str =
    "jump (j J1 (j J2 (j J3 (j J4 (j J5 (j J6 (j J7 (j J8 (j J9 (j J10 (j J11 (j J12 (j J13 f)))))))))))))";

/// The proof of the first answer of the 13-jump query (computed once).
fn solitaire_proof() -> Proof {
    static PROOF: std::sync::OnceLock<Proof> = std::sync::OnceLock::new();
    PROOF
        .get_or_init(|| {
            let mut s = session();
            s.load_file(program("solitaire.lolli")).unwrap();
            let mut ps = proofs(&mut s, THIRTEEN, 1);
            assert_eq!(ps.len(), 1);
            ps.remove(0).1
        })
        .clone()
}

#[test]
fn checker_accepts_the_triangle_proofs() {
    solitaire_proof().check().unwrap();
    let mut s = session();
    s.load_file(program("solitaire.lolli")).unwrap();
    let two = proofs(&mut s, "jump (s (s z))", usize::MAX);
    assert!(two.len() > 1);
    for (_, p) in &two {
        p.check().unwrap();
    }
    let mut s = session();
    s.load_file(program("solitaire2.lolli")).unwrap();
    let all = proofs(&mut s, "jump (j A (j B f))", usize::MAX);
    assert_eq!(all.len(), two.len());
    for (_, p) in &all {
        p.check().unwrap();
    }
    let first = proofs(&mut s, SOLITAIRE2_QUERY, 1);
    first[0].1.check().unwrap();
}

/// The takes of a move made from the fact found before (`fast_take`, on
/// whenever a call's only candidate is known) record the steps the usual
/// way records: every proof of four jumps on the triangle prints the same
/// as with a depth limit, which turns that path and the look-ahead off.
#[test]
fn takes_from_known_facts_record_the_usual_steps() {
    // The seed's program, the moves recorded in the head, and the jumps
    // counted by an integer (the move begins at the body's third goal).
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let cases = [
        (
            program("solitaire.lolli"),
            "jump (s (s (s (s z))))".to_string(),
        ),
        (
            program("solitaire2.lolli"),
            "jump (j A (j B (j C (j D f))))".to_string(),
        ),
        (root.join("bench/counted.lolli"), "jump 4".to_string()),
    ];
    for (path, goal) in cases {
        let printed = |max_depth: Option<u32>| {
            let options = Options {
                proofs: true,
                max_depth,
                ..Options::default()
            };
            let mut s = Session::with_options(options, Box::new(BufferHost::default()));
            s.load_file(&path).unwrap();
            let ps = proofs(&mut s, &goal, usize::MAX);
            let trees: Vec<String> = ps
                .iter()
                .map(|(_, p)| {
                    p.check().unwrap();
                    print_tree::tree(p)
                })
                .collect();
            (trees, s.machine.known_takes)
        };
        let (fast, known) = printed(None);
        let (usual, none) = printed(Some(1_000));
        assert!(known > 0, "{goal}: no take made from a known fact");
        assert_eq!(none, 0);
        assert!(fast.len() > 100, "{goal}: {} proofs", fast.len());
        assert_eq!(fast, usual, "{goal}");
    }
}

/// A hole of the board and its contents, read from a `b X Y D` resource.
fn hole(t: &Term) -> ((u32, u32), String) {
    fn nat(t: &Term) -> u32 {
        match t.functor() {
            Some(("z", [])) => 0,
            Some(("s", [n])) => 1 + nat(n),
            _ => panic!("not a number: {t}"),
        }
    }
    match t.functor() {
        Some(("b", [x, y, Term::Atom(d)])) => ((nat(x), nat(y)), d.clone()),
        _ => panic!("not a hole: {t}"),
    }
}

fn nat_text(n: u32) -> String {
    let mut s = "z".to_string();
    for _ in 0..n {
        s = if s == "z" {
            "s z".to_string()
        } else {
            format!("s ({s})")
        };
    }
    if n == 0 {
        s
    } else {
        format!("({s})")
    }
}

#[test]
fn moves_of_the_triangle_replay_on_a_board() {
    let p = solitaire_proof();
    let moves = moves::moves(&p, "jump");
    assert_eq!(moves.len(), 14, "13 jumps and the final `jump z :- erase`");

    // The board: the program's linear resources.
    let mut board: HashMap<(u32, u32), String> = p
        .program
        .iter()
        .filter(|r| r.linear)
        .map(|r| hole(&r.clause))
        .collect();
    assert_eq!(board.len(), 15);
    let directions = [
        ((1, 0), "sw"),
        ((1, 1), "se"),
        ((0, 1), "e"),
        ((-1, 0), "ne"),
        ((-1, -1), "nw"),
        ((0, -1), "w"),
    ];
    let mut played = Vec::new();
    for m in &moves[..13] {
        assert_eq!(m.consumed.len(), 3, "{m}");
        assert_eq!(m.assumed.len(), 3, "{m}");
        let before: Vec<_> = m.consumed.iter().map(|r| hole(&r.clause)).collect();
        let after: Vec<_> = m.assumed.iter().map(|r| hole(&r.clause)).collect();
        // Three holes in a line: peg, peg, empty become empty, empty, peg.
        let [(a, da), (b, db), (c, dc)] = [&before[0], &before[1], &before[2]].map(|x| x.clone());
        assert_eq!(
            (da.as_str(), db.as_str(), dc.as_str()),
            ("peg", "peg", "empty")
        );
        let step = (b.0 as i32 - a.0 as i32, b.1 as i32 - a.1 as i32);
        assert_eq!(
            (c.0 as i32 - b.0 as i32, c.1 as i32 - b.1 as i32),
            step,
            "{m}"
        );
        let dir = directions
            .iter()
            .find(|(d, _)| *d == step)
            .map(|(_, n)| *n)
            .unwrap_or_else(|| panic!("not a jump direction: {m}"));
        for (pos, d) in &before {
            assert_eq!(board.get(pos), Some(d), "the board agrees before {m}");
        }
        let mut expected_after = vec![(a, "empty"), (b, "empty"), (c, "peg")];
        let mut got_after: Vec<_> = after.iter().map(|(p, d)| (*p, d.as_str())).collect();
        expected_after.sort();
        got_after.sort();
        assert_eq!(got_after, expected_after, "{m}");
        for (pos, d) in after {
            board.insert(pos, d);
        }
        played.push(format!("{dir} {} {}", nat_text(a.0), nat_text(a.1)));
    }
    let pegs = board.values().filter(|d| *d == "peg").count();
    assert_eq!(pegs, 1, "one peg is left");

    // The last use swallows the final board.
    assert!(
        moves[13].instance.starts_with("jump z :- erase"),
        "{}",
        moves[13]
    );
    assert_eq!(moves[13].consumed.len(), 15);
    assert!(moves[13].assumed.is_empty());

    // The same game as the instrumented program's first answer.
    let expected = [
        "ne (s (s (s (s z)))) (s z)",
        "w (s (s (s z))) (s (s (s z)))",
        "se (s z) z",
        "se (s z) (s z)",
        "ne (s (s (s z))) z",
        "sw z z",
        "nw (s (s (s (s z)))) (s (s (s (s z))))",
        "w (s (s (s (s z)))) (s (s (s z)))",
        "sw (s (s z)) (s (s z))",
        "e (s (s (s (s z)))) (s z)",
        "se (s (s z)) z",
        "w (s (s (s (s z)))) (s (s (s z)))",
        "e (s (s (s (s z)))) z",
    ];
    assert_eq!(played, expected);
    let mut s = session();
    s.load_file(program("solitaire2.lolli")).unwrap();
    let answer = proofs(&mut s, SOLITAIRE2_QUERY, 1).remove(0).0;
    let bindings: Vec<String> = answer.iter().map(|(_, v)| v.clone()).collect();
    assert_eq!(bindings, expected);
    let names: Vec<String> = answer.iter().map(|(n, _)| n.clone()).collect();
    assert_eq!(names, (1..=13).map(|i| format!("J{i}")).collect::<Vec<_>>());
}

#[test]
fn a_moves_line_reads_instance_consumed_assumed() {
    let mut s = session();
    s.load_file(program("solitaire.lolli")).unwrap();
    let ps = proofs(&mut s, "jump (s z)", 1);
    let lines: Vec<String> = moves::moves(&ps[0].1, "jump/1")
        .iter()
        .map(|m| m.to_string())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(
        lines[0],
        "jump (s z) :- b (s (s (s (s z)))) (s z) peg, b (s (s (s z))) (s z) peg, \
         b (s (s z)) (s z) empty, (b (s (s (s (s z)))) (s z) empty, b (s (s (s z))) (s z) empty, \
         b (s (s z)) (s z) peg) -o jump z  \
         consumed: b (s (s (s (s z)))) (s z) peg, b (s (s (s z))) (s z) peg, b (s (s z)) (s z) empty  \
         assumed: b (s (s (s (s z)))) (s z) empty, b (s (s (s z))) (s z) empty, b (s (s z)) (s z) peg"
    );
    assert!(moves::moves(&ps[0].1, "jump/2").is_empty());
}

// ---------------------------------------------------------------------------
// Tampered proofs

fn atoms(n: &Node) -> Vec<Vec<usize>> {
    n.preorder()
        .into_iter()
        .filter(|(_, m)| m.rule == RuleName::Atom)
        .map(|(p, _)| p)
        .collect()
}

#[test]
fn a_resource_used_twice_is_rejected() {
    let mut p = proofs_of("a -o a -o (a , a)").remove(0);
    let paths = atoms(&p.root);
    assert_eq!(paths, [vec![0, 0, 0], vec![0, 0, 1]]);
    let first = p.root.at(&paths[0]).unwrap().clone();
    // The second atom claims the resource the first one used.
    let second = p.root.at_mut(&paths[1]).unwrap();
    second.clause = first.clause.clone();
    second.consumed = first.consumed.clone();
    let e = p.check().unwrap_err();
    assert_eq!(e.path, [0, 0, 1]);
    assert!(matches!(e.problem, Problem::Unavailable { .. }));
    assert_eq!(
        e.to_string(),
        "step 0.0.1 (atom `a`): the linear resource `a` is not available here: \
         it was already used, or is hidden by {} or &"
    );
}

#[test]
fn a_dropped_resource_is_rejected() {
    let mut p = proofs_of("a -o b -o c -o (erase , erase)").remove(0);
    let erase = p
        .root
        .preorder()
        .into_iter()
        .find(|(_, n)| n.rule == RuleName::Erase && !n.consumed.is_empty())
        .map(|(path, _)| path)
        .unwrap();
    let swallowed = &mut p.root.at_mut(&erase).unwrap().consumed;
    // In the search's order: the newest assumption first.
    assert_eq!(texts(swallowed), ["c", "b", "a"]);
    swallowed.retain(|r| r.text != "b");
    let e = p.check().unwrap_err();
    assert_eq!(
        e.to_string(),
        "step 0 (lolli `b -o c -o (erase, erase)`): the linear resource `b` is never used \
         (nor swallowed by erase)"
    );

    // A program resource nobody uses is reported at the root.
    let mut p = solitaire_proof();
    let last_erase = p
        .root
        .preorder()
        .into_iter()
        .rfind(|(_, n)| n.rule == RuleName::Erase)
        .map(|(path, _)| path)
        .unwrap();
    let swallowed = &mut p.root.at_mut(&last_erase).unwrap().consumed;
    let dropped = swallowed
        .iter()
        .position(|r| r.text == "b z z empty")
        .unwrap();
    let entry = swallowed.remove(dropped).entry;
    assert!(
        p.program.iter().all(|r| r.entry != entry),
        "assumed by a jump"
    );
    let e = p.check().unwrap_err();
    assert!(matches!(e.problem, Problem::Unused { ref resource } if resource == "b z z empty"));
    assert_eq!(e.rule, RuleName::Lolli);
}

#[test]
fn a_forall_constant_that_is_not_fresh_is_rejected() {
    // `q` names a predicate of the goal, so it cannot be the constant.
    let mut p = proofs_of("forall p \\ (q a => (p -o p))").remove(0);
    p.check().unwrap();
    let w = p.root.witness.as_mut().unwrap();
    w.term = Term::Atom("q".into());
    w.text = "q".into();
    let e = p.check().unwrap_err();
    assert_eq!(e.path, Vec::<usize>::new());
    assert!(matches!(e.problem, Problem::NotFresh { ref constant } if constant == "q"));
}

#[test]
fn a_wrong_clause_is_rejected() {
    let mut p = solitaire_proof();
    // The first jump is by the `ne` clause; claim it used another jump clause.
    let used = p.root.clause.as_ref().unwrap().entry;
    let jump_clauses: Vec<u32> = p
        .program
        .iter()
        .filter(|r| r.text.starts_with("jump (s N) :- ") && r.entry != used)
        .map(|r| r.entry)
        .collect();
    assert!(!jump_clauses.is_empty());
    p.root.clause.as_mut().unwrap().entry = jump_clauses[0];
    let e = p.check().unwrap_err();
    assert_eq!(e.path, Vec::<usize>::new());
    assert!(matches!(e.problem, Problem::NotAnInstance { .. }));
    let text = e.to_string();
    assert!(
        text.starts_with(&format!(
            "step root (atom `{THIRTEEN}`): `jump (s (s (s (s (s (s (s (s (s (s (s (s (s z))))))))))))) :- b"
        )),
        "{text}"
    );
    assert!(
        text.contains("is not an instance of the clause `jump (s N) :- "),
        "{text}"
    );
}

#[test]
fn a_premise_for_the_wrong_goal_is_rejected() {
    let mut p = proofs_of("a -o b -o (a , b)").remove(0);
    let tensor = p.root.at_mut(&[0, 0]).unwrap();
    tensor.children.swap(0, 1);
    let e = p.check().unwrap_err();
    assert_eq!(
        e.to_string(),
        "step 0.0 (tensor `a, b`): premise 0 should prove `a` but proves `b`"
    );
}

// ---------------------------------------------------------------------------
// The command line

fn lolli(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lolli"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn cli_prints_and_checks_proofs() {
    let (code, out, err) = lolli(&["--proof", "--check-proofs", "-e", "a -o b -o (a , b)"]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(
        out,
        "yes\nlolli a -o b -o (a, b)   assumed: a\n  lolli b -o (a, b)   assumed: b\n    \
         tensor a, b\n      atom a   consumed: a\n      atom b   consumed: b\n"
    );
    let (code, out, err) = lolli(&[
        "--proof",
        "--check-proofs",
        "-e",
        "(forall x \\ forall y \\ q x y) -o q a b",
    ]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(
        out,
        "yes\nlolli (forall x \\ forall y \\ q x y) -o q a b   \
         assumed: (forall x \\ forall y \\ q x y)\n  \
         atom q a b   consumed: (forall x \\ forall y \\ q x y)\n"
    );
    let (code, out, _) = lolli(&["--proof=json", "--all", "-e", "a -o (a ; a)"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 2);
    assert!(out
        .lines()
        .all(|l| l.starts_with("{\"answer\": {}, \"proof\": {\"rule\": \"lolli\"")));
    // No answer: `no`, as without --proof.
    let (code, out, _) = lolli(&["--proof=json", "-e", "a -o b"]);
    assert_eq!((code, out.as_str()), (1, "no\n"));
    let (code, out, _) = lolli(&["--proof=dot", "-e", "true"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "// yes\ndigraph proof1 {\n  node [shape=box, fontname=\"monospace\"];\n  n0 [label=\"one\"];\n}\n"
    );
}

#[test]
fn cli_checks_proofs_with_variable_applications() {
    for goal in [
        "F = p, F a => p a",
        "F = p, (F a) -o p X",
        "F = p, (F a :- q) -o q -o p a",
    ] {
        let (code, out, err) = lolli(&["--check-proofs", "-e", goal]);
        assert_eq!((code, err.as_str()), (0, ""), "{goal}");
        assert!(out.starts_with("F = p"), "{goal}: {out}");
    }
}

#[test]
fn a_proof_past_the_memory_limit_is_an_error_not_a_crash() {
    // A list of 10 fits in 1 MB; one of 10,000 does not: the answer is
    // printed, then the error, and nothing is built.
    let small = "findall X (between 1 10 X) L";
    let (code, out, err) = lolli(&["--proof", "--max-memory", "1", "-e", small]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert!(out.starts_with("L = 1 :: 2 :: "), "{out}");
    assert!(
        out.contains("\nbuiltin findall X (between 1 10 X) (1 :: 2 :: "),
        "{out}"
    );
    let large = "findall X (between 1 10000 X) L";
    let (code, out, err) = lolli(&["--proof", "--max-memory", "1", "-e", large]);
    assert_eq!(code, 2);
    assert!(out.starts_with("L = 1 :: 2 :: ") && out.ends_with(":: 10000 :: nil\n"));
    assert!(
        err.starts_with(
            "error[E003]: the proof of answer 1 is too large to build within the memory \
             limit: it has 1 step and more than "
        ) && err.contains(" term cells, 0.")
            && err.contains(" MB or more to build, and the limit leaves 0.")
            && err.ends_with(" MB\n = `--max-memory MB` sets the limit, 0 lifts it\n\n"),
        "{err}"
    );
    // Without the limit it is printed.
    let (code, out, err) = lolli(&["--proof", "--max-memory", "0", "-e", large]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert!(out.ends_with(":: 9999 :: 10000 :: nil)\n"), "{out}");
}

#[test]
fn fresh_constants_never_print_like_the_programs_names() {
    // A `forall` constant prints as `x_0` unless a name is written so...
    let (code, out, err) = lolli(&["--proof", "-e", "forall x \\ not (x = x_0)"]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(
        out,
        "yes\nforall forall x \\ not (x = x_0)   fresh: x_0_\n  builtin not (x_0_ = x_0)\n"
    );
    // ... and a module's LOCAL name `key` (`key_1` when toggle.lolli is
    // loaded) moves aside when the goal writes `key_1` after it.
    let goal = "sw key_1 on -o (state S done, sw key_1 on)";
    let (code, out, err) = lolli(&["programs/toggle.lolli", "--proof", "-e", goal]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert!(
        out.contains("atom sw key_1_ off   consumed: sw key_1_ off")
            && out.contains("atom sw key_1 on   consumed: sw key_1 on"),
        "{out}"
    );
}

#[test]
fn a_modules_clauses_do_not_take_the_querys_variable_names() {
    // `get N` is the query's: the clauses show their own as `N2`.
    let dir = common::temp_dir("proof-names");
    std::fs::write(
        dir.join("counter.lolli"),
        "MODULE counter Start.\nLOCAL key.\nLINEAR cnt key Start.\n\
         get N G :- cnt key N, (cnt key N -o G).\ndone N :- cnt key N.\n",
    )
    .unwrap();
    let dir_arg = dir.to_str().unwrap();
    let (code, out, err) = lolli(&[
        "-I",
        dir_arg,
        "--proof",
        "-e",
        "counter 5 --o get N (done N)",
    ]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert!(
        out.starts_with(
            "N = 5\nlolli counter 5 --o get 5 (done 5)   assumed: cnt key_1 5, \
             (get N2 G :- cnt key_1 N2, cnt key_1 N2 -o G), (done N2 :- cnt key_1 N2)\n"
        ),
        "{out}"
    );
}

#[test]
fn a_proof_of_many_small_steps_counts_its_steps_against_the_memory_limit() {
    // `deep 2000` makes 20,001 steps and 264,006 term cells.  Counted as
    // cells only, at 120 bytes each (32 MB), 40 MB seemed enough; but each
    // step costs about 1 KB besides its cells, and the run took 52 MB.
    let goal = "deep 2000 C";
    let (code, out, err) = lolli(&[
        "bench/deep.lolli",
        "--moves",
        "deep",
        "--max-memory",
        "40",
        "-e",
        goal,
    ]);
    assert_eq!((code, out.as_str()), (2, "C = 2000\n"), "{err}");
    assert!(
        err.starts_with(
            "error[E003]: the proof of answer 1 is too large to build within the memory \
             limit: it has 20001 steps and more than "
        ),
        "{err}"
    );
    let (code, out, err) = lolli(&[
        "bench/deep.lolli",
        "--moves",
        "deep",
        "--max-memory",
        "70",
        "-e",
        goal,
    ]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert!(out.starts_with("C = 2000\ndeep 2000 2000 :- "), "{out}");
}

#[test]
fn a_deep_tree_is_indented_up_to_a_cap_then_shows_its_depth() {
    // A recursion 3,000 levels deep: with two spaces per level the text
    // grew with the square of the depth (90 MB); past the cap each line
    // shows its depth instead, so it stays linear.
    let mut s = session();
    s.load_str("cnt.lolli", "cnt 0.\ncnt N :- N > 0, M is N - 1, cnt M.\n")
        .unwrap();
    let ps = proofs(&mut s, "cnt 3000", 1);
    let text = print_tree::tree(&ps[0].1);
    assert_eq!(text.lines().count(), 15_001);
    assert!(text.len() < 15_001 * 120, "{} bytes", text.len());
    let cap = print_tree::MAX_INDENT_DEPTH;
    let pad = "  ".repeat(cap);
    let lines: Vec<&str> = text.lines().collect();
    // Depth 32 (the last indented by spaces alone), 33 and the last step.
    let at_32 = format!("{pad}atom cnt 2984   clause: cnt.lolli:2");
    assert!(lines.contains(&at_32.as_str()), "{at_32}");
    let at_33 = format!("{pad}[33] builtin 2984 is 2985 - 1");
    assert!(lines.contains(&at_33.as_str()), "{at_33}");
    assert_eq!(
        lines.last().copied(),
        Some(format!("{pad}[6000] atom cnt 0   clause: cnt.lolli:1").as_str())
    );
    // Every line is indented at most `cap` levels.
    assert!(lines.iter().all(|l| !l.starts_with(&format!("{pad} "))));
}

#[test]
fn a_latex_step_shows_a_long_delta_cut_short() {
    // 2,000 resources assumed, then consumed 2,000 levels down: every step
    // above the consumption repeats the ones still to come in its Δ, which
    // made the text grow with the square of the depth.
    let mut s = session();
    s.load_str(
        "lin.lolli",
        "mk 0 G :- G.\nmk N G :- N > 0, M is N - 1, r N -o mk M G.\n\
         eat 0.\neat N :- r N, M is N - 1, eat M.\n",
    )
    .unwrap();
    let ps = proofs(&mut s, "mk 2000 (eat 2000)", 1);
    let text = print_latex::latex("yes", &ps[0].1);
    assert!(text.len() < 5_000_000, "{} bytes", text.len());
    assert!(
        text.contains(
            "\\UnaryInfC{\\texttt{r 2000}, \\texttt{r 1999}, \\texttt{r 1998}, \\texttt{r 1997}, \
             \\texttt{r 1996}, \\texttt{r 1995}, \\texttt{r 1994}, \\texttt{r 1993}, \
             \\ldots{} (1992 more) $\\vdash$ \\texttt{eat 2000}}\n"
        ),
        "{}",
        &text[..2000]
    );
}

#[test]
fn a_long_resource_in_a_latex_delta_does_not_hide_the_short_ones_after_it() {
    // Δ of the step proving `p` holds `a`, a 1,500-character list and `b`:
    // the list does not fit in the 1,000 characters Δ may show, `b` does.
    let list: Vec<String> = (0..300).map(|i| i.to_string()).collect();
    let goal = format!(
        "a -o r ({}) -o b -o ((a , r L , b) -o p) => p",
        list.join(" :: ")
    );
    let (code, out, err) = lolli(&["--proof=latex", "-e", &goal]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert!(
        out.contains("{\\texttt{a}, \\texttt{b}, \\ldots{} (1 more) $\\vdash$ \\texttt{p}}"),
        "{}",
        out.lines()
            .filter(|l| l.contains("vdash$ \\texttt{p}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}
#[test]
fn a_latex_step_shows_a_long_goal_cut_short_and_names_the_engine_for_unicode() {
    // TeX cannot set one `\texttt` of much more than 3,000 characters: a
    // goal with a list of 600 numbers stopped pdflatex.
    let list: Vec<String> = (0..600).map(|i| i.to_string()).collect();
    let goal = format!("X = ({} :: nil)", list.join(" :: "));
    let (code, out, err) = lolli(&["--proof=latex", "-e", &goal]);
    assert_eq!((code, err.as_str()), (0, ""));
    let step = out.lines().find(|l| l.starts_with("\\UnaryInfC")).unwrap();
    assert!(step.len() < 2100, "{step}");
    assert!(
        step.ends_with("301}\\ldots{} (6189 more characters)}"),
        "{step}"
    );
    assert!(out.starts_with("% X = 0 :: 1 :: "), "{}", &out[..100]);
    // Names beyond ASCII need xelatex or lualatex (or \newunicodechar).
    let (code, out, _) = lolli(&["--proof=latex", "-e", "p é -o p X"]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("% the proof has characters beyond ASCII: typeset it with xelatex"),
        "{out}"
    );
}

#[test]
fn cli_moves_lists_the_jumps() {
    let (code, out, err) = lolli(&[
        "programs/solitaire.lolli",
        "--check-proofs",
        "--moves",
        "jump",
        "-e",
        THIRTEEN,
    ]);
    assert_eq!((code, err.as_str()), (0, ""));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 15);
    assert_eq!(lines[0], "yes");
    assert!(lines[1].ends_with(
        "consumed: b (s (s (s (s z)))) (s z) peg, b (s (s (s z))) (s z) peg, b (s (s z)) (s z) empty  \
         assumed: b (s (s (s (s z)))) (s z) empty, b (s (s (s z))) (s z) empty, b (s (s z)) (s z) peg"
    ));
}

#[test]
fn an_erase_lists_what_it_swallowed_in_the_order_the_search_tries_it() {
    // As `:context` lists them: a file's `LINEAR` clauses in file order,
    // one assumption's parts in the order written, the newest assumption
    // first.
    let mut s = session();
    s.load_str(
        "pegs.lolli",
        "LINEAR h 0 peg.\nLINEAR h 8 peg.\nLINEAR h 9 peg.\nLINEAR h 10 peg.\nLINEAR k 1.\n\
         go :- h 9 peg, erase.\n",
    )
    .unwrap();
    let swallowed = |s: &mut Session, goal: &str| -> Vec<String> {
        let (_, p) = proofs(s, goal, 1).remove(0);
        p.check().unwrap();
        let (_, erase) = p
            .root
            .preorder()
            .into_iter()
            .rfind(|(_, n)| n.rule == RuleName::Erase)
            .unwrap();
        texts(&erase.consumed)
            .into_iter()
            .map(String::from)
            .collect()
    };
    assert_eq!(
        swallowed(&mut s, "go"),
        ["h 0 peg", "h 8 peg", "h 10 peg", "k 1"]
    );
    assert_eq!(
        swallowed(&mut s, "(a, b, c) -o d -o (erase, erase)"),
        ["d", "a", "b", "c", "h 0 peg", "h 8 peg", "h 9 peg", "h 10 peg", "k 1"]
    );
    let (code, out, err) = lolli(&["--proof", "-e", "(a, b, c) -o d -o (erase, erase)"]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert!(
        out.ends_with("    erase\n      erase   swallowed: d, a, b, c\n"),
        "{out}"
    );
}

#[test]
fn an_erase_in_the_left_branch_of_with_lists_what_it_swallowed() {
    let ps = check_all("a -o b -o (erase & (a , b))", 1);
    let erase = ps[0].root.at(&[0, 0, 0]).unwrap();
    assert_eq!(erase.rule, RuleName::Erase);
    let mut swallowed = texts(&erase.consumed);
    swallowed.sort();
    assert_eq!(swallowed, ["a", "b"]);
}

#[test]
fn a_body_run_conjunct_by_conjunct_keeps_every_tensor_step() {
    // Bodies that nest to the left (`G1 , G2 , G3` as read) run one
    // conjunct at a time with proofs too, their `,` steps made before the
    // first conjunct; a body nesting to the right is copied whole.  Both
    // give the tree of the body as written, with retries in between (`r a`
    // is tried first and fails at `s a`).
    let mut s = session();
    s.load_str(
        "t.lolli",
        "LINEAR r a. LINEAR r b. LINEAR s b.\n\
         both X :- r X, s X, true.\n\
         call G X :- r X, G, s X.\n\
         right X :- r X, (s X, true).\n\
         after X :- r X, (t X -o t X), s X.\n",
    )
    .unwrap();
    let cases = [
        (
            "both X",
            "atom both b\n  tensor r b, s b, true\n    tensor r b, s b\n      atom r b\n      \
             atom s b\n    one\n",
        ),
        (
            "call true X",
            "atom call true b\n  tensor r b, true, s b\n    tensor r b, true\n      atom r b\n      \
             one\n    atom s b\n",
        ),
        (
            "right X",
            "atom right b\n  tensor r b, (s b, true)\n    atom r b\n    tensor s b, true\n      \
             atom s b\n      one\n",
        ),
        (
            "after X",
            "atom after b\n  tensor r b, t b -o t b, s b\n    tensor r b, t b -o t b\n      \
             atom r b\n      lolli t b -o t b\n        atom t b\n    atom s b\n",
        ),
    ];
    for (goal, expected) in cases {
        let all = proofs(&mut s, &format!("{goal}, erase"), usize::MAX);
        assert_eq!(all.len(), 1, "{goal}");
        let p = &all[0].1;
        if let Err(e) = p.check() {
            panic!("{goal}: rejected: {e}\n{}", print_tree::tree(p));
        }
        // The body's subtree, rules and goals only.
        let tree = print_tree::tree(p);
        let lines: Vec<String> = tree
            .lines()
            .skip(1)
            .take_while(|l| !l.trim_start().starts_with("erase"))
            .map(|l| {
                let text = l.trim_start();
                let indent = l.len() - text.len() - 2;
                let rule_and_goal = text.split("   ").next().unwrap();
                format!("{}{rule_and_goal}", " ".repeat(indent))
            })
            .collect();
        assert_eq!(lines.join("\n") + "\n", expected, "{goal}");
    }
}
