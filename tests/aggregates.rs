//! The aggregate built-ins and the prelude, through the session API: their
//! answers and their resource behaviour.

use lolli::{Session, Value};

fn first(s: &mut Session, goal: &str) -> String {
    match s.query(goal).unwrap().next() {
        Some(a) => a.unwrap().to_string(),
        None => "no".to_string(),
    }
}

fn all(s: &mut Session, goal: &str) -> Vec<String> {
    s.query(goal)
        .unwrap()
        .map(|a| a.unwrap().to_string())
        .collect()
}

#[test]
fn findall_collects_in_order_with_fresh_variables() {
    let mut s = Session::new();
    s.add_clause("p 1. p 2. p 3.").unwrap();
    assert_eq!(first(&mut s, "findall X (p X) L"), "L = 1 :: 2 :: 3 :: nil");
    assert_eq!(first(&mut s, "findall X (p 4) L"), "L = nil");
    assert_eq!(
        first(&mut s, "findall (f X Y) (p X) L"),
        "L = f 1 _1 :: f 2 _2 :: f 3 _3 :: nil"
    );
    // The goal's bindings are undone: X stays unbound.
    assert_eq!(first(&mut s, "findall X (p X) _, var X"), "yes");
}

#[test]
fn aggregates_see_the_context_and_consume_nothing() {
    let mut s = Session::new();
    // The goal may use any of the resources, and gives them back...
    assert_eq!(
        first(&mut s, "(b 1, b 2) -o (findall X (b X) L, b Y, b Z)"),
        "L = 1 :: 2 :: nil, Y = 1, Z = 2"
    );
    // ...so without using them afterwards the scope fails.
    assert_eq!(first(&mut s, "(b 1, b 2) -o findall X (b X) L"), "no");
    assert_eq!(
        first(&mut s, "(b 1, b 2) -o (count (b _, b _) N, erase)"),
        "N = 2"
    );
    assert_eq!(first(&mut s, "b 1 -o (not (b 2), b 1)"), "yes");
    assert_eq!(first(&mut s, "b 1 -o (not (b 1), b 1)"), "no");
}

#[test]
fn once_consumes_what_its_first_proof_consumes() {
    let mut s = Session::new();
    assert_eq!(
        first(&mut s, "(b 1, b 2) -o (once (b X), b Y)"),
        "X = 1, Y = 2"
    );
    assert_eq!(all(&mut s, "(b 1, b 2) -o (once (b X), b Y)").len(), 1);
    assert_eq!(first(&mut s, "(b 1, b 2) -o once (b X)"), "no");
}

#[test]
fn between_enumerates_and_tests() {
    let mut s = Session::new();
    assert_eq!(all(&mut s, "between 1 3 X"), ["X = 1", "X = 2", "X = 3"]);
    assert_eq!(all(&mut s, "between 3 1 X"), Vec::<String>::new());
    assert_eq!(first(&mut s, "between 1 (2 + 1) 3"), "yes");
    assert_eq!(first(&mut s, "between 1 3 4"), "no");
    assert!(s.query("between 1 3 a").unwrap().next().unwrap().is_err());
    assert!(s.query("between A 3 X").unwrap().next().unwrap().is_err());
}

#[test]
fn prelude_lists() {
    let mut s = Session::new();
    assert_eq!(first(&mut s, "length (a :: b :: nil) N"), "N = 2");
    assert_eq!(first(&mut s, "length L 2"), "L = _1 :: _2 :: nil");
    assert_eq!(all(&mut s, "length L 1").len(), 1);
    assert_eq!(
        first(&mut s, "append (1 :: nil) (2 :: nil) L"),
        "L = 1 :: 2 :: nil"
    );
    assert_eq!(all(&mut s, "append X Y (1 :: 2 :: nil)").len(), 3);
    assert_eq!(
        all(&mut s, "member X (a :: b :: a :: nil)"),
        ["X = a", "X = b", "X = a"]
    );
}

#[test]
fn a_user_definition_replaces_the_preludes() {
    let mut s = Session::new();
    s.load_str("mine", "member X (X :: _).").unwrap();
    assert_eq!(all(&mut s, "member X (a :: b :: nil)"), ["X = a"]);
    // Other prelude predicates are still there.
    assert_eq!(first(&mut s, "length (a :: nil) N"), "N = 1");
}

#[test]
fn rust_builtins_check_and_bind() {
    let mut s = Session::new();
    s.register_builtin(
        "swap",
        2,
        Box::new(|args: &[Value]| match &args[0] {
            Value::Compound(f, xs) if f == "-" && xs.len() == 2 => Ok(Some(vec![
                args[0].clone(),
                Value::Compound("-".into(), vec![xs[1].clone(), xs[0].clone()]),
            ])),
            _ => Ok(None),
        }),
    );
    // A program calling it is not told that nothing defines it (W002),
    // but is told when the number of arguments is wrong (W003); so is a
    // goal.
    s.load_str("uses", "flip P Q :- swap P Q.\nbad P :- swap P.\n")
        .unwrap();
    let codes: Vec<&str> = s.take_warnings().iter().map(|w| w.kind.code()).collect();
    assert_eq!(codes, ["W003"]);
    let p = s.prepare("swap (1 - 2) P, swap P").unwrap();
    let codes: Vec<&str> = s
        .goal_warnings(&p, &Vec::new)
        .iter()
        .map(|w| w.kind.code())
        .collect();
    assert_eq!(codes, ["W003"]);
    assert_eq!(first(&mut s, "swap (1 - Y) P"), "P = Y - 1");
    assert_eq!(first(&mut s, "swap a P"), "no");
    let a = s.query("swap (1 - x) P").unwrap().next().unwrap().unwrap();
    assert_eq!(
        a.value("P"),
        Some(&Value::Compound(
            "-".into(),
            vec![Value::Atom("x".into()), Value::Int(1)]
        ))
    );
}

#[test]
fn resources_added_from_rust_must_be_consumed() {
    let mut s = Session::new();
    s.add_resource("token a. token b").unwrap();
    assert_eq!(first(&mut s, "token X"), "no");
    assert_eq!(first(&mut s, "token X, token Y"), "X = a, Y = b");
    assert_eq!(first(&mut s, "count (token _) N, erase"), "N = 2");
}

#[test]
fn findall_answers_count_against_the_memory_limit() {
    use lolli::{engine::BufferHost, Options};
    let options = Options {
        max_memory: Some(50 * 1024 * 1024),
        ..Options::default()
    };
    let mut s = Session::with_options(options, Box::new(BufferHost::default()));
    // Small collections are unaffected by the limit, and shared variables
    // stay shared within each answer.
    assert_eq!(
        first(&mut s, "findall (f X Y a X) (between 1 2 Y) L"),
        "L = f _1 1 a _1 :: f _2 2 a _2 :: nil"
    );
    // Thirty million answers do not fit in 50 MB: the query stops with an
    // error instead of exhausting the machine.
    let err = s
        .query("findall X (between 1 30000000 X) L")
        .unwrap()
        .next()
        .expect("an error, not a failure")
        .expect_err("stopped by the limit");
    assert!(
        matches!(&err, lolli::Error::Runtime(e)
            if e.message.starts_with("memory limit exceeded: `findall` holds")),
        "{err:?}"
    );
    // The session goes on.
    assert_eq!(first(&mut s, "count (between 1 10 _) N"), "N = 10");
}
