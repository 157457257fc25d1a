//! Tests of the syntax front end: lexer, precedence and associativity of
//! every operator, binders, lists, quoted names, strings, comments, items,
//! error messages and positions, error recovery and `is_complete`.
//!
//! Terms are compared through a small S-expression rendering (`sx`) for
//! readability, and through exact `Term` values where spans matter.

use lolli::syntax::lexer::{tokenize, LexError};
use lolli::syntax::token::Token;
use lolli::syntax::*;
use pretty_assertions::assert_eq;

// ------------------------------------------------------------------ helpers

/// Renders a term as an S-expression: `(head arg ...)`, binders as
/// `(forall x \ body)`, strings in double quotes, names with odd
/// characters in single quotes.
fn sx(t: &Term) -> String {
    match &t.kind {
        TermKind::Var(v) => v.clone(),
        TermKind::Wildcard => "_".to_string(),
        TermKind::Name(n) => {
            if n.chars().any(|c| c.is_whitespace() || c == '\'') || n.is_empty() {
                format!("'{n}'")
            } else {
                n.clone()
            }
        }
        TermKind::Int(i) => i.to_string(),
        TermKind::Str(s) => format!("{s:?}"),
        TermKind::App(h, args) => {
            let mut out = format!("({}", sx(h));
            for a in args {
                out.push(' ');
                out.push_str(&sx(a));
            }
            out.push(')');
            out
        }
        TermKind::Binder(q, x, _, body) => {
            let q = match q {
                Quant::Forall => "forall",
                Quant::Exists => "exists",
            };
            format!("({q} {x} \\ {})", sx(body))
        }
    }
}

/// The S-expression of a goal that must parse.
fn g(src: &str) -> String {
    match parse_goal(src) {
        Ok(t) => sx(&t),
        Err(e) => panic!("{src:?} did not parse: {e:?}"),
    }
}

/// The error of a goal that must not parse.
fn goal_err(src: &str) -> SyntaxError {
    match parse_goal(src) {
        Ok(t) => panic!("{src:?} parsed as {}", sx(&t)),
        Err(e) => e,
    }
}

fn toks(src: &str) -> Vec<Token> {
    let (ts, errs) = tokenize(src);
    assert_eq!(errs, vec![], "lexical errors in {src:?}");
    ts.into_iter().map(|t| t.1).collect()
}

fn name(s: &str) -> Token {
    Token::Name(s.to_string())
}

fn var(s: &str) -> Token {
    Token::Var(s.to_string())
}

fn t(kind: TermKind, span: Span) -> Term {
    Term { kind, span }
}

fn n(s: &str, span: Span) -> Term {
    t(TermKind::Name(s.to_string()), span)
}

fn v(s: &str, span: Span) -> Term {
    t(TermKind::Var(s.to_string()), span)
}

fn app(head: Term, args: Vec<Term>, span: Span) -> Term {
    t(TermKind::App(Box::new(head), args), span)
}

/// Renders the items of a program that must parse without errors.
fn program(src: &str) -> Vec<String> {
    let (items, errors) = parse_program(src);
    assert_eq!(errors, vec![], "errors in {src:?}");
    items.iter().map(show_item).collect()
}

fn show_item(item: &Item) -> String {
    match item {
        Item::Module { name, params, .. } => {
            let ps: Vec<&str> = params.iter().map(|p| p.0.as_str()).collect();
            format!("MODULE {name} [{}]", ps.join(" "))
        }
        Item::Linear(t, _) => format!("LINEAR {}", sx(t)),
        Item::Local(ns, _) => {
            let ns: Vec<&str> = ns.iter().map(|p| p.0.as_str()).collect();
            format!("LOCAL [{}]", ns.join(" "))
        }
        Item::Memo(ns, _) => {
            let ns: Vec<&str> = ns.iter().map(|p| p.0.as_str()).collect();
            format!("MEMO [{}]", ns.join(" "))
        }
        Item::Clause(t) => sx(t),
    }
}

// ------------------------------------------------------------------ lexer

#[test]
fn lexes_identifiers_variables_wildcard_and_keywords() {
    assert_eq!(
        toks("foo Bar _x _ x1_2 forall exists is MODULE LINEAR LOCAL MEMO"),
        vec![
            name("foo"),
            var("Bar"),
            var("_x"),
            Token::Wildcard,
            name("x1_2"),
            Token::Forall,
            Token::Exists,
            Token::Is,
            Token::Module,
            Token::Linear,
            Token::Local,
            Token::Memo,
        ]
    );
}

#[test]
fn lexes_every_operator_with_longest_match() {
    use Token::*;
    assert_eq!(
        toks(":- <= --> ; & , => -o --o -> | = =:= =\\= =< >= < > + - * / :: ( ) { } \\"),
        vec![
            Neck, RevImp, Dcg, Semi, Amp, Comma, Imp, Lolli, LongLolli, Arrow, Bar, Eq, ArithEq,
            ArithNe, Le, Ge, Lt, Gt, Plus, Minus, Star, Slash, Cons, LParen, RParen, LBrace,
            RBrace, Backslash,
        ]
    );
    // No spaces needed between operators and terms.
    assert_eq!(
        toks("a:-b,c"),
        vec![name("a"), Neck, name("b"), Comma, name("c")]
    );
    assert_eq!(toks("X=<Y"), vec![var("X"), Le, var("Y")]);
    assert_eq!(toks("X<=Y"), vec![var("X"), RevImp, var("Y")]);
    assert_eq!(toks("a-o b"), vec![name("a"), Lolli, name("b")]);
    assert_eq!(toks("a--o b"), vec![name("a"), LongLolli, name("b")]);
    assert_eq!(toks("a-->b"), vec![name("a"), Dcg, name("b")]);
    assert_eq!(
        toks("1::2::nil"),
        vec![Int(1), Cons, Int(2), Cons, name("nil")]
    );
}

#[test]
fn dash_o_is_an_operator_only_before_a_non_identifier_character() {
    use Token::*;
    assert_eq!(toks("a -one"), vec![name("a"), Minus, name("one")]);
    assert_eq!(toks("a --one"), vec![name("a"), Minus, Minus, name("one")]);
    assert_eq!(
        toks("a -o(b)"),
        vec![name("a"), Lolli, LParen, name("b"), RParen]
    );
    assert_eq!(toks("a -o_x"), vec![name("a"), Minus, name("o_x")]);
    assert_eq!(toks("a --o1"), vec![name("a"), Minus, Minus, name("o1")]);
}

#[test]
fn lexes_numbers_and_negative_literals() {
    use Token::*;
    assert_eq!(
        toks("0 42 9223372036854775807"),
        vec![Int(0), Int(42), Int(i64::MAX)]
    );
    // A `-` glued to digits where a term starts is a negative literal...
    assert_eq!(toks("X is -1"), vec![var("X"), Is, Int(-1)]);
    assert_eq!(toks("f (-1)"), vec![name("f"), LParen, Int(-1), RParen]);
    assert_eq!(toks("-9223372036854775808"), vec![Int(i64::MIN)]);
    // ...but after a term it is a subtraction.
    assert_eq!(toks("N-1"), vec![var("N"), Minus, Int(1)]);
    assert_eq!(toks("f -1"), vec![name("f"), Minus, Int(1)]);
    assert_eq!(toks("(X)-1"), vec![LParen, var("X"), RParen, Minus, Int(1)]);
    assert_eq!(toks("3 - -2"), vec![Int(3), Minus, Int(-2)]);
    assert_eq!(toks("X - 1"), vec![var("X"), Minus, Int(1)]);
    // Spans of a negative literal include the sign.
    let (ts, _) = tokenize("X is -12");
    assert_eq!(ts[2], (5, Int(-12), 8));
}

#[test]
fn integer_overflow_is_a_lexical_error() {
    let (ts, errs) = tokenize("a 99999999999999999999 b");
    assert_eq!(
        ts.iter().map(|t| t.1.clone()).collect::<Vec<_>>(),
        vec![name("a"), name("b")]
    );
    assert_eq!(
        errs,
        vec![LexError {
            span: 2..22,
            message: "integer literal too large".to_string(),
            open_comment: false,
        }]
    );
    let (_, errs) = tokenize("-9223372036854775809");
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].span, 0..20);
}

#[test]
fn lexes_quoted_names_with_escapes() {
    assert_eq!(toks("'hello world'"), vec![name("hello world")]);
    assert_eq!(
        toks(r"'it\'s' 'it''s' 'a\\b'"),
        vec![name("it's"), name("it's"), name("a\\b")]
    );
    // A quoted keyword or upper-case text is just a name.
    assert_eq!(
        toks("'forall' 'X' 'is' '-o'"),
        vec![name("forall"), name("X"), name("is"), name("-o")]
    );
    assert_eq!(toks("''"), vec![name("")]);
    let (ts, _) = tokenize("  'a b' ");
    assert_eq!(ts, vec![(2, name("a b"), 7)]);
}

#[test]
fn lexes_strings_with_escapes() {
    assert_eq!(
        toks(r#""hi" "a\nb\t\\\"c" """#),
        vec![
            Token::Str("hi".to_string()),
            Token::Str("a\nb\t\\\"c".to_string()),
            Token::Str(String::new()),
        ]
    );
    let (ts, _) = tokenize(r#"x "a b""#);
    assert_eq!(ts[1], (2, Token::Str("a b".to_string()), 7));
}

#[test]
fn comments_and_whitespace_are_skipped() {
    assert_eq!(
        toks("a % comment :- ( 'unclosed\n b\t%x\r\n% whole line\n c"),
        vec![name("a"), name("b"), name("c")]
    );
    assert_eq!(toks("% only a comment"), vec![]);
    // `%` inside quotes is text, not a comment.
    assert_eq!(
        toks("'50%' \"%\""),
        vec![name("50%"), Token::Str("%".to_string())]
    );
}

#[test]
fn a_byte_order_mark_at_the_start_is_skipped() {
    // Spans still count its three bytes; elsewhere it is no blank.
    let (ts, errors) = tokenize("\u{feff}p a.");
    assert_eq!(errors, vec![]);
    assert_eq!(ts[0], (3, name("p"), 4));
    assert_eq!(
        program("\u{feff}LINEAR p a.\r\np b."),
        vec!["LINEAR (p a)", "(p b)"]
    );
    let (_, errors) = tokenize("p \u{feff}a");
    assert_eq!(errors.len(), 1, "{errors:?}");
}

#[test]
fn block_comments_run_to_the_first_close() {
    use Token::*;
    assert_eq!(
        toks("a /* one\n two ( 'x */ b /**/ c/* a /* b */d"),
        vec![name("a"), name("b"), name("c"), name("d")]
    );
    // A clause may end right before one; `/` and `*` alone stay operators.
    assert_eq!(toks("p./* c */"), vec![name("p"), End]);
    assert_eq!(
        toks("X / Y * Z"),
        vec![var("X"), Slash, var("Y"), Star, var("Z")]
    );
    // Inside quotes it is text.
    assert_eq!(toks("'/*' \"*/\""), vec![name("/*"), Str("*/".to_string())]);
    // Unclosed: an error at the `/*`, and the rest is skipped.
    let (ts, errs) = tokenize("a /* never\nclosed");
    assert_eq!(
        ts.iter().map(|t| t.1.clone()).collect::<Vec<_>>(),
        vec![name("a")]
    );
    assert_eq!(
        errs,
        vec![LexError {
            span: 2..4,
            message: "this `/*` comment is never closed: end it with `*/`".to_string(),
            open_comment: true,
        }]
    );
}

#[test]
fn end_of_clause_dot_needs_blank_comment_or_end_after_it() {
    use Token::*;
    assert_eq!(
        toks("a. b.\nc.%x\nd."),
        vec![
            name("a"),
            End,
            name("b"),
            End,
            name("c"),
            End,
            name("d"),
            End
        ]
    );
    let (ts, errs) = tokenize("a.b.");
    assert_eq!(
        ts.iter().map(|t| t.1.clone()).collect::<Vec<_>>(),
        vec![name("a"), name("b"), End]
    );
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].span, 1..2);
    assert!(
        errs[0].message.starts_with("unexpected `.`"),
        "{}",
        errs[0].message
    );
}

#[test]
fn lexical_errors_have_spans_and_lexing_resumes() {
    let (ts, errs) = tokenize("a $ b é c ? d : e");
    assert_eq!(
        ts.iter().map(|t| t.1.clone()).collect::<Vec<_>>(),
        vec![
            name("a"),
            name("b"),
            name("é"),
            name("c"),
            name("d"),
            name("e")
        ]
    );
    let got: Vec<(Span, String)> = errs.into_iter().map(|e| (e.span, e.message)).collect();
    assert_eq!(
        got,
        vec![
            (2..3, "unexpected character `$`".to_string()),
            (11..12, "unexpected character `?`".to_string()),
            (15..16, "unexpected character `:`".to_string()),
        ]
    );
}

#[test]
fn unterminated_quotes_and_strings_span_from_the_opening_quote() {
    let (ts, errs) = tokenize("a 'abc\nb \"xy");
    assert_eq!(
        ts.iter().map(|t| t.1.clone()).collect::<Vec<_>>(),
        vec![name("a"), name("b")]
    );
    assert_eq!(errs.len(), 2);
    assert_eq!(errs[0].span, 2..6);
    assert!(
        errs[0].message.starts_with("unterminated quoted name"),
        "{}",
        errs[0].message
    );
    assert_eq!(errs[1].span, 9..12);
    assert!(
        errs[1].message.starts_with("unterminated string"),
        "{}",
        errs[1].message
    );
    let (_, errs) = tokenize(r#""a\qb" x"#);
    assert_eq!(
        errs,
        vec![LexError {
            span: 2..4,
            message: "unknown escape `\\q` in a string".to_string(),
            open_comment: false,
        }]
    );
}

#[test]
fn token_words_for_messages() {
    assert_eq!(Token::Lolli.describe(), "`-o`");
    assert_eq!(Token::End.describe(), "end of clause `.`");
    assert_eq!(name("foo").describe(), "name `foo`");
    assert_eq!(name("a b").describe(), "name `'a b'`");
    assert_eq!(var("X").describe(), "variable `X`");
    assert_eq!(Token::Int(-3).describe(), "number `-3`");
    assert_eq!(Token::Forall.describe(), "keyword `forall`");
    assert_eq!(Token::ArithNe.to_string(), "=\\=");
    assert_eq!(Token::Str("a\"b".to_string()).to_string(), "\"a\\\"b\"");
}

// ------------------------------------------------------------------ precedence

#[test]
fn application_is_curried_and_flattened() {
    assert_eq!(g("f a (g b c)"), "(f a (g b c))");
    assert_eq!(g("(f a) b"), "(f a b)");
    assert_eq!(g("((f a) b) c"), "(f a b c)");
    assert_eq!(g("X a b"), "(X a b)");
    assert_eq!(g("f _ 1 \"s\" X {a}"), "(f _ 1 \"s\" X ({} a))");
    assert_eq!(g("f (-1) 2"), "(f -1 2)");
    assert_eq!(g("a"), "a");
}

#[test]
fn application_binds_tighter_than_every_operator() {
    assert_eq!(g("f a :: g b"), "(:: (f a) (g b))");
    assert_eq!(g("f a * g b"), "(* (f a) (g b))");
    assert_eq!(g("f a -o g b"), "(-o (f a) (g b))");
}

#[test]
fn cons_is_right_associative_and_tighter_than_arithmetic() {
    assert_eq!(g("1 :: 2 :: nil"), "(:: 1 (:: 2 nil))");
    assert_eq!(g("X * Y :: L"), "(* X (:: Y L))");
    assert_eq!(g("X :: L = Y"), "(= (:: X L) Y)");
    assert_eq!(g("(1 :: 2) :: nil"), "(:: (:: 1 2) nil)");
}

#[test]
fn arithmetic_precedence_and_left_associativity() {
    assert_eq!(g("a - b - c"), "(- (- a b) c)");
    assert_eq!(g("a + b - c"), "(- (+ a b) c)");
    assert_eq!(g("a / b * c"), "(* (/ a b) c)");
    assert_eq!(g("a + b * c"), "(+ a (* b c))");
    assert_eq!(g("a * b + c"), "(+ (* a b) c)");
    assert_eq!(g("a * (b + c)"), "(* a (+ b c))");
    assert_eq!(g("N-1"), "(- N 1)");
    assert_eq!(g("X is 3 - -2"), "(is X (- 3 -2))");
    assert_eq!(g("X is -2 * 3"), "(is X (* -2 3))");
}

#[test]
fn comparisons_are_left_associative_and_looser_than_arithmetic() {
    for op in ["=", "=:=", "=\\=", "=<", ">=", "<", ">", "is"] {
        assert_eq!(g(&format!("X {op} Y + 1")), format!("({op} X (+ Y 1))"));
        assert_eq!(
            g(&format!("a {op} b {op} c")),
            format!("({op} ({op} a b) c)")
        );
    }
    assert_eq!(g("X = Y, Y < 3"), "(, (= X Y) (< Y 3))");
}

#[test]
fn guard_has_three_arguments_and_nests_to_the_right() {
    assert_eq!(g("a -> b | c"), "(-> a b c)");
    assert_eq!(g("a -> b | c -> d | e"), "(-> a b (-> c d e))");
    assert_eq!(
        g("X = 1 -> Y is 2 | Y is 3"),
        "(-> (= X 1) (is Y 2) (is Y 3))"
    );
    assert_eq!(g("a -> b | c --o d"), "(--o (-> a b c) d)");
    assert_eq!(g("a -> (b, c) | d"), "(-> a (, b c) d)");
}

#[test]
fn guard_spans() {
    let got = parse_goal("p -> q | r").ok();
    let want = app(
        n("->", 2..4),
        vec![n("p", 0..1), n("q", 5..6), n("r", 9..10)],
        0..10,
    );
    assert_eq!(got, Some(want));
}

#[test]
fn long_lolli_is_right_associative_between_guard_and_lolli() {
    assert_eq!(g("a --o b --o c"), "(--o a (--o b c))");
    assert_eq!(g("a --o b -o c"), "(-o (--o a b) c)");
    assert_eq!(g("a -o b --o c"), "(-o a (--o b c))");
    assert_eq!(g("a = b --o c"), "(--o (= a b) c)");
}

#[test]
fn lolli_and_implication_are_right_associative() {
    assert_eq!(g("a -o b -o c"), "(-o a (-o b c))");
    assert_eq!(g("a => b => c"), "(=> a (=> b c))");
    assert_eq!(g("a => b -o c"), "(=> a (-o b c))");
    assert_eq!(g("a -o b => c"), "(-o a (=> b c))");
    assert_eq!(g("(a -o b) -o c"), "(-o (-o a b) c)");
}

#[test]
fn comma_is_left_associative_and_looser_than_lolli() {
    assert_eq!(g("a, b, c"), "(, (, a b) c)");
    assert_eq!(g("a -o b, c"), "(, (-o a b) c)");
    assert_eq!(g("a, b -o c"), "(, a (-o b c))");
    assert_eq!(g("a , b => c , d"), "(, (, a (=> b c)) d)");
}

#[test]
fn with_is_right_associative_and_looser_than_comma() {
    assert_eq!(g("a & b & c"), "(& a (& b c))");
    assert_eq!(g("a, b & c, d"), "(& (, a b) (, c d))");
}

#[test]
fn semicolon_is_right_associative_and_looser_than_with() {
    assert_eq!(g("a ; b ; c"), "(; a (; b c))");
    assert_eq!(g("a & b ; c & d"), "(; (& a b) (& c d))");
    assert_eq!(g("a, b ; c"), "(; (, a b) c)");
}

#[test]
fn neck_family_is_left_associative_and_loosest() {
    assert_eq!(g("a :- b ; c"), "(:- a (; b c))");
    assert_eq!(g("a :- b :- c"), "(:- (:- a b) c)");
    assert_eq!(g("a <= b"), "(<= a b)");
    assert_eq!(g("a --> b, c"), "(--> a (, b c))");
    assert_eq!(g("a :- b <= c"), "(<= (:- a b) c)");
    assert_eq!(g("a <= b --> c"), "(--> (<= a b) c)");
}

#[test]
fn binary_operator_spans() {
    let got = parse_goal("a :- b, c").ok();
    let want = app(
        n(":-", 2..4),
        vec![
            n("a", 0..1),
            app(n(",", 6..7), vec![n("b", 5..6), n("c", 8..9)], 5..9),
        ],
        0..9,
    );
    assert_eq!(got, Some(want));
    // A parenthesized operand: the inner node keeps its own span, the
    // operator node spans the parentheses too.
    let got = parse_goal("(f X) -o g").ok();
    let want = app(
        n("-o", 6..8),
        vec![app(n("f", 1..2), vec![v("X", 3..4)], 1..4), n("g", 9..10)],
        0..10,
    );
    assert_eq!(got, Some(want));
}

#[test]
fn braces_are_the_name_braces_applied_to_the_formula() {
    assert_eq!(g("{a, b}"), "({} (, a b))");
    assert_eq!(g("a -o {b} , c"), "(, (-o a ({} b)) c)");
    let got = parse_goal("{a}").ok();
    assert_eq!(got, Some(app(n("{}", 0..1), vec![n("a", 1..2)], 0..3)));
}

// ------------------------------------------------------------------ binders

#[test]
fn binders_extend_as_far_right_as_possible() {
    assert_eq!(g("forall x \\ p x, q"), "(forall x \\ (, (p x) q))");
    assert_eq!(g("exists X \\ p X ; q"), "(exists X \\ (; (p X) q))");
    assert_eq!(
        g("forall x \\ forall y \\ p x y"),
        "(forall x \\ (forall y \\ (p x y)))"
    );
    assert_eq!(g("(forall x \\ p x), q"), "(, (forall x \\ (p x)) q)");
}

#[test]
fn binders_as_the_rightmost_operand_of_any_operator() {
    assert_eq!(
        g("a :- forall x \\ b x, c"),
        "(:- a (forall x \\ (, (b x) c)))"
    );
    for op in [
        ":-", "<=", "-->", ";", "&", ",", "=>", "-o", "--o", "=", "=:=", "=\\=", "=<", ">=", "<",
        ">", "is", "+", "-", "*", "/", "::",
    ] {
        assert_eq!(
            g(&format!("a {op} exists y \\ b y :- c")),
            format!("({op} a (exists y \\ (:- (b y) c)))"),
            "operator {op}"
        );
    }
    assert_eq!(
        g("a -> b | forall x \\ c, d"),
        "(-> a b (forall x \\ (, c d)))"
    );
    assert_eq!(g("a, b -o forall x \\ c"), "(, a (-o b (forall x \\ c)))");
    assert_eq!(
        g("f (forall x \\ p x) {exists y \\ q}"),
        "(f (forall x \\ (p x)) ({} (exists y \\ q)))"
    );
}

#[test]
fn binder_spans() {
    let got = parse_goal("forall x \\ p x").ok();
    let want = t(
        TermKind::Binder(
            Quant::Forall,
            "x".to_string(),
            7..8,
            Box::new(app(n("p", 11..12), vec![n("x", 13..14)], 11..14)),
        ),
        0..14,
    );
    assert_eq!(got, Some(want));
}

#[test]
fn a_binder_cannot_be_a_left_operand_or_an_argument() {
    let e = goal_err("f forall x \\ p");
    assert_eq!(e.span, 2..8);
    let e = goal_err("forall \\ p");
    assert_eq!(e.span, 7..8);
    let e = goal_err("forall _ \\ p");
    assert_eq!(e.span, 7..8);
    let e = goal_err("a -> forall x \\ b | c");
    assert_eq!(e.span, 5..11);
}

// ------------------------------------------------------------------ data

#[test]
fn lists_strings_numbers_and_quoted_names() {
    assert_eq!(
        g("append (X :: L) K (X :: M)"),
        "(append (:: X L) K (:: X M))"
    );
    assert_eq!(
        g("write \"hello, world\\n\""),
        "(write \"hello, world\\n\")"
    );
    assert_eq!(g("'hello world' 'X' 'forall'"), "('hello world' X forall)");
    let got = parse_goal("'X'").ok();
    assert_eq!(got, Some(n("X", 0..3)));
    let got = parse_goal("-5").ok();
    assert_eq!(got, Some(t(TermKind::Int(-5), 0..2)));
    let got = parse_goal("f \"s\" _ Y").ok();
    assert_eq!(
        got,
        Some(app(
            n("f", 0..1),
            vec![
                t(TermKind::Str("s".to_string()), 2..5),
                t(TermKind::Wildcard, 6..7),
                v("Y", 8..9)
            ],
            0..9
        ))
    );
}

#[test]
fn the_peg_solitaire_clause() {
    let src = "jump (s N) :-
          b X Y peg , b (s X) Y peg , b (s (s X)) Y empty ,
          ((b X Y empty , b (s X) Y empty , b (s (s X)) Y peg)
\t   -o jump N).
";
    assert_eq!(
        program(src),
        vec![
            "(:- (jump (s N)) (, (, (, (b X Y peg) (b (s X) Y peg)) (b (s (s X)) Y empty)) \
             (-o (, (, (b X Y empty) (b (s X) Y empty)) (b (s (s X)) Y peg)) (jump N))))"
                .to_string()
        ]
    );
}

// ------------------------------------------------------------------ goals

#[test]
fn goal_dot_is_optional_but_nothing_may_follow_it() {
    assert_eq!(g("p X."), "(p X)");
    assert_eq!(g("p X"), "(p X)");
    assert_eq!(g("  p X .  % comment\n"), "(p X)");
    assert_eq!(parse_term("f X.").map(|t| sx(&t)), Ok("(f X)".to_string()));
    let e = goal_err("p. q.");
    assert_eq!(e.span, 3..4);
    assert_eq!(
        e.message,
        "unexpected name `q` after the end `.` of the goal"
    );
    let e = goal_err("   ");
    assert_eq!(e.span, 3..3);
    assert_eq!(e.expected.as_deref(), Some("a term"));
}

// ------------------------------------------------------------------ errors

#[test]
fn error_after_an_operator_names_the_operator() {
    let e = goal_err("a -o )");
    assert_eq!(e.span, 5..6);
    assert_eq!(e.message, "unbalanced parenthesis: this `)` closes nothing");
    let e = goal_err("a :- b -o .");
    assert_eq!(e.span, 10..11);
    assert_eq!(
        e.message,
        "expected a term after `-o`, but found end of clause `.`"
    );
    assert_eq!(e.expected.as_deref(), Some("a term"));
    let e = goal_err("(a -o ,)");
    assert_eq!(e.span, 6..7);
    assert_eq!(e.message, "expected a term after `-o`, but found `,`");
}

#[test]
fn error_for_an_unexpected_token_after_a_term() {
    let e = goal_err("a b :- c )");
    assert_eq!(e.span, 9..10);
    assert_eq!(e.message, "unbalanced parenthesis: this `)` closes nothing");
    let e = goal_err("p X forall");
    assert_eq!(e.span, 4..10);
    assert_eq!(e.message, "unexpected keyword `forall`");
    assert_eq!(
        e.expected.as_deref(),
        Some("an operator, `.` or an argument")
    );
    let e = goal_err("a -> b c");
    assert_eq!(e.span, 8..8);
    assert_eq!(
        e.message,
        "unexpected end of input after name `c`: the clause is not finished"
    );
}

#[test]
fn unbalanced_brackets() {
    let e = goal_err("p :- (a, (b, c)");
    assert_eq!(e.span, 5..6);
    assert_eq!(
        e.message,
        "unbalanced parenthesis: this `(` is never closed"
    );
    let e = goal_err("p :- {a, b.");
    assert_eq!(e.span, 5..6);
    assert_eq!(e.message, "unbalanced brace: this `{` is never closed");
    let e = goal_err("p :- (a, b}");
    assert_eq!(e.span, 10..11);
    assert_eq!(
        e.message,
        "unbalanced brace: this `}` does not match the `(` at bytes 5..6"
    );
}

#[test]
fn lexical_errors_are_syntax_errors_for_goals() {
    let e = goal_err("p $");
    assert_eq!(
        e,
        SyntaxError {
            span: 2..3,
            message: "unexpected character `$`".to_string(),
            expected: None,
            hint: None,
        }
    );
    let e = goal_err("X is 123456789012345678901234567890");
    assert_eq!(e.span, 5..35);
    assert_eq!(e.message, "integer literal too large");
}

// ------------------------------------------------------------------ programs

#[test]
fn items_of_every_kind() {
    let src = "MODULE lists A B.\n\
               LOCAL helper aux.\n\
               MEMO path.\n\
               LINEAR counter 0.\n\
               append nil K K.\n\
               MODULE empty.\n";
    assert_eq!(
        program(src),
        vec![
            "MODULE lists [A B]",
            "LOCAL [helper aux]",
            "MEMO [path]",
            "LINEAR (counter 0)",
            "(append nil K K)",
            "MODULE empty []",
        ]
    );
}

#[test]
fn item_spans() {
    let (items, errors) = parse_program("MODULE m X Y.\nLINEAR r.\nLOCAL a b.\nMEMO p.");
    assert_eq!(errors, vec![]);
    assert_eq!(
        items,
        vec![
            Item::Module {
                name: "m".to_string(),
                name_span: 7..8,
                params: vec![("X".to_string(), 9..10), ("Y".to_string(), 11..12)],
                span: 0..12,
            },
            Item::Linear(n("r", 21..22), 14..22),
            Item::Local(
                vec![("a".to_string(), 30..31), ("b".to_string(), 32..33)],
                24..33
            ),
            Item::Memo(vec![("p".to_string(), 40..41)], 35..41),
        ]
    );
}

#[test]
fn empty_program_and_comments_only() {
    assert_eq!(parse_program(""), (vec![], vec![]));
    assert_eq!(parse_program("% nothing here\n  \n"), (vec![], vec![]));
}

#[test]
fn missing_final_dot() {
    let (items, errors) = parse_program("a.\nb :- c  % no dot\n");
    assert_eq!(items.iter().map(show_item).collect::<Vec<_>>(), vec!["a"]);
    assert_eq!(
        errors,
        vec![SyntaxError {
            span: 9..9,
            message: "expected `.` at the end of the clause".to_string(),
            expected: Some("an operator, `.` or an argument".to_string()),
            hint: None,
        }]
    );
    let (_, errors) = parse_program("a :- ");
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].span, 4..4);
    assert_eq!(
        errors[0].message,
        "unexpected end of input after `:-`: the clause is not finished"
    );
}

#[test]
fn recovery_reports_every_bad_item_and_keeps_the_good_ones() {
    let src = "good 1.\n\
               bad :- .\n\
               good 2.\n\
               also bad $ here.\n\
               good 3.\n\
               (unclosed :- x.\n\
               . \n\
               MODULE X.\n\
               good 4.\n";
    let (items, errors) = parse_program(src);
    assert_eq!(
        items.iter().map(show_item).collect::<Vec<_>>(),
        vec!["(good 1)", "(good 2)", "(good 3)", "(good 4)"]
    );
    let got: Vec<(String, String)> = errors
        .iter()
        .map(|e| (src[e.span.clone()].to_string(), e.message.clone()))
        .collect();
    assert_eq!(
        got,
        vec![
            (
                ".".to_string(),
                "expected a term after `:-`, but found end of clause `.`".to_string()
            ),
            ("$".to_string(), "unexpected character `$`".to_string()),
            (
                "(".to_string(),
                "unbalanced parenthesis: this `(` is never closed".to_string()
            ),
            (
                ".".to_string(),
                "unexpected `.`: there is no clause before it".to_string()
            ),
            (
                "X".to_string(),
                "expected a name after keyword `MODULE`, but found variable `X`".to_string(),
            ),
        ]
    );
    assert_eq!(errors[4].expected.as_deref(), Some("a name"));
}

#[test]
fn one_error_per_item_even_with_several_lexical_errors() {
    let (items, errors) = parse_program("a $ ? b.\nc.\n");
    assert_eq!(items, vec![Item::Clause(n("c", 9..10))]);
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].span, 2..3);
}

#[test]
fn a_bad_dot_splits_nothing() {
    // `a.b` is a lexical error inside the item, not the end of a clause.
    let (items, errors) = parse_program("p :- a.b.\nq.\n");
    assert_eq!(items.iter().map(show_item).collect::<Vec<_>>(), vec!["q"]);
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].span, 6..7);
}

#[test]
fn declarations_reject_wrong_arguments() {
    let (_, errors) = parse_program("LOCAL X.\nMEMO.\nMODULE m a.\nLINEAR.\n");
    let got: Vec<Span> = errors.iter().map(|e| e.span.clone()).collect();
    assert_eq!(got, vec![6..7, 13..14, 24..25, 33..34]);
    assert_eq!(errors[0].expected.as_deref(), Some("a name"));
    assert_eq!(errors[2].expected.as_deref(), Some("a variable or `.`"));
    assert_eq!(errors[3].expected.as_deref(), Some("a term"));
}

#[test]
fn keywords_are_not_names() {
    let e = goal_err("p MODULE");
    assert_eq!(e.span, 2..8);
    assert_eq!(g("p 'MODULE'"), "(p MODULE)");
}

#[test]
fn a_goal_may_start_with_the_query_prompt() {
    // As copied from a Lolli or Prolog transcript.
    assert_eq!(g("?- jump (s z)."), "(jump (s z))");
    assert_eq!(g("  ?- p X, q"), g("p X, q"));
    // Spans still point into the text as typed.
    let e = goal_err("?- p (");
    assert_eq!(e.span, 5..6);
    assert_eq!(goal_err("?-").span, 2..2);
    // Only at the start, and only for goals: a term read by `read` is data.
    assert!(parse_goal("p ?- q").is_err());
    assert!(parse_term("?- q").is_err());
    assert!(!is_complete("?- p (a,"));
    assert!(is_complete("?- p (a)."));
}

// ------------------------------------------------------------------ is_complete

#[test]
fn is_complete_for_the_repl() {
    assert!(is_complete("p X."));
    assert!(is_complete("p X.\n"));
    assert!(is_complete("p X. % done"));
    assert!(!is_complete("p X"));
    assert!(!is_complete("p :- (a,\n"));
    assert!(is_complete("p :- (a,\n b)."));
    // A `.` that ends the goal inside brackets: the parser ends the goal
    // there too, so the error (the bracket is never closed) is reported
    // at once rather than after more lines.
    assert!(is_complete("p :- (a. "));
    assert!(is_complete("p :- {a. "));
    assert!(is_complete("p (X.\n"));
    assert!(is_complete("p :- {a}. "));
    assert!(!is_complete(""));
    assert!(!is_complete("   % only a comment\n"));
    // Dots inside quotes, strings and comments do not count.
    assert!(!is_complete("p 'a. b' "));
    assert!(!is_complete("p \"x. y\" "));
    assert!(!is_complete("p % x.\n"));
    assert!(!is_complete("p /* x.\n"));
    assert!(is_complete("p /* x. */ .\n"));
    // A `.` glued to a name is not an end of clause; it is an error to report.
    assert!(is_complete("p a.b"));
    // Errors that more input cannot fix are complete, so they get reported.
    assert!(is_complete("p $"));
    assert!(is_complete("p )"));
    assert!(is_complete("p 'unterminated\n"));
    assert!(is_complete("p 'a. b"));
}

#[test]
fn resuming_finds_the_ends_a_whole_scan_finds() {
    // `read` and the piped top level lex a growing text only where they
    // stopped (a term of 40,000 lines took 14 s when the whole text was
    // lexed again for every line).  Fed a line, or a piece of a line, at a
    // time, the resuming forms must answer as the whole-text forms do.
    let texts = [
        "f\n y\n y\n .\n",
        "p (a,\n b). q.\n",
        "p /* x.\n y. */ z.\n",
        "p /* x. *\n/ y.\n",
        "\"x. y\" 'q.\n r' % s.\n t.\n",
        "?- p (a,\n b).\n",
        "p a.b\n.\n",
        "f -\n1.\n",
        "p )\n",
        "p 'unterminated\n",
        "  % only a comment\n",
    ];
    for text in texts {
        // Pieces: each line, then each line cut in two.
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let mut pieces: Vec<Vec<&str>> = vec![lines.clone()];
        let mut cut = Vec::new();
        for l in &lines {
            let mid = (1..l.len()).find(|&i| l.is_char_boundary(i) && i >= l.len() / 2);
            match mid {
                Some(m) => cut.extend([&l[..m], &l[m..]]),
                None => cut.push(l),
            }
        }
        pieces.push(cut);
        for (k, ps) in pieces.iter().enumerate() {
            let (mut grown, mut resume) = (String::new(), Resume::default());
            for p in ps {
                grown.push_str(p);
                let got = term_end_resuming(&grown, &mut resume);
                assert_eq!(got, term_end(&grown), "{text:?} at {grown:?}");
                if got.is_some() {
                    break;
                }
            }
            if k == 0 {
                let (mut grown, mut resume) = (String::new(), Resume::default());
                for p in ps {
                    grown.push_str(p);
                    let got = is_complete_resuming(&grown, &mut resume);
                    assert_eq!(got, is_complete(&grown), "{text:?} at {grown:?}");
                    if got {
                        break;
                    }
                }
            }
        }
    }
}

#[test]
fn term_end_finds_where_read_stops() {
    assert_eq!(term_end("a. b.\n"), Some(2));
    assert_eq!(term_end(" b.\n"), Some(3));
    assert_eq!(term_end("a."), Some(2));
    assert_eq!(term_end("foo (bar\n"), None);
    assert_eq!(term_end("foo (bar\n X). baz\n"), Some(13));
    // The first clause-ending `.`, even inside brackets (parsing reports them).
    assert_eq!(term_end("f (x. y).\n"), Some(5));
    // Not a `.` in a string, a quoted name or a comment, nor one glued on.
    assert_eq!(term_end("\"x. y\" 'q. r' % s.\n"), None);
    assert_eq!(term_end("p /* x. */ .\n"), Some(12));
    assert_eq!(term_end("p /* x.\n"), None);
    assert_eq!(term_end("p a.b"), None);
    assert!(is_blank(" % c.\n /* d. */ \n"));
    assert!(!is_blank(" % c.\n e"));
}

// ------------------------------------------------------------------ robustness

#[test]
fn no_panic_on_any_prefix_or_deletion() {
    let src =
        "MODULE m X.\nLOCAL a.\np (s N) :- forall x \\ q 'é x' \"s\\n\" -3, {r} -o (t -> u | v).\n\
               LINEAR w. % comment ü\nq X :- X is 1 + 2 * 3 :: nil, X =\\= 4 --o a.b ? '\n";
    let chars: Vec<(usize, char)> = src.char_indices().collect();
    let mut parsed_items = 0;
    for &(i, c) in &chars {
        let prefix = &src[..i];
        let (items, _) = parse_program(prefix);
        parsed_items += items.len();
        let _ = parse_goal(prefix);
        let _ = is_complete(prefix);
        let deleted = format!("{}{}", &src[..i], &src[i + c.len_utf8()..]);
        let (_, errors) = parse_program(&deleted);
        for e in errors {
            assert!(
                e.span.start <= e.span.end && e.span.end <= deleted.len(),
                "{e:?}"
            );
            assert!(deleted.is_char_boundary(e.span.start) && deleted.is_char_boundary(e.span.end));
        }
        let _ = parse_goal(&deleted);
    }
    assert!(parsed_items > 0);
    let (items, errors) = parse_program(src);
    assert_eq!(items.len(), 4);
    assert_eq!(errors.len(), 1);
}

#[test]
fn the_printer_leaves_unquoted_exactly_the_names_the_lexer_reads() {
    for text in [
        "jump", "b2", "é", "日本", "aÉ_1", "ǅx", "Abc", "É", "_x", "1a", "a-b", "is",
    ] {
        let read_as_name = toks(text) == vec![name(text)];
        let printed = lolli::pretty::quote_name(text);
        assert_eq!(printed == text, read_as_name, "{text} printed as {printed}");
    }
}

#[test]
fn spellings_from_other_languages_get_a_hint() {
    let hint = |src: &str| goal_err(src).hint;
    let forall = Some("`pi x \\ G` is written `forall x \\ G`".to_string());
    let exists = Some("`sigma x \\ G` is written `exists x \\ G`".to_string());
    let bang = Some("`!G` is written `{G}`: a goal in braces uses no linear resource".to_string());
    let cut = Some(
        "there is no cut `!`: `once G` or `G1 -> G2 | G3` keep only the first proof of a goal"
            .to_string(),
    );
    let list = Some(
        "lists are written with `::` and `nil`: `[a, b]` is `a :: b :: nil`, `[H|T]` is `H :: T`, `[]` is `nil`"
            .to_string(),
    );
    assert_eq!(hint("pi x \\ true"), forall);
    assert_eq!(hint("p, pi Y\\ q Y"), forall);
    assert_eq!(hint("sigma X \\ true"), exists);
    assert_eq!(hint("!a"), bang);
    assert_eq!(hint("p, ! (q ; r)"), bang);
    assert_eq!(hint("p, !, q"), cut);
    assert_eq!(
        hint("\\+ member a L"),
        Some("negation is written `not G`: `\\+ G` is `not G`".to_string())
    );
    assert_eq!(
        hint("p X, X \\= a"),
        Some("`A \\= B` is written `not (A = B)`".to_string())
    );
    assert_eq!(hint("X \\== a"), None);
    assert_eq!(
        hint("X == Y"),
        Some(
            "there is no `==`: `A = B` unifies, `A =:= B` compares numbers, `not (A = B)` \
             tests that they do not unify"
                .to_string()
        )
    );
    assert_eq!(
        hint("X is 7 // 2"),
        Some("integer division is `/` (it truncates toward zero): `//` is `/`".to_string())
    );
    assert_eq!(
        hint("X is 7 mod 2"),
        Some(
            "there is no `mod`: arithmetic has `+ - * /`, and `A - (A / B) * B` is the \
             remainder (its sign that of `A`)"
                .to_string()
        )
    );
    assert_eq!(hint("X is 7 modulo"), None);
    assert_eq!(hint("X = [1,2]"), list);
    assert_eq!(hint("X = []"), list);
    // The span stays on the offending text.
    assert_eq!(goal_err("pi x \\ true").span, 5..6);
    assert_eq!(goal_err("X = [1,2]").span, 4..5);
    // Only those words before a bound name, and only at the error.
    assert_eq!(hint("api x \\ true"), None);
    assert_eq!(hint("p x \\ true"), None);
    assert_eq!(hint("p $"), None);
    // In a program too, for lexical and grammar errors alike.
    let (_, errors) = parse_program("p :- sigma X \\ q X.\nr :- [a].\n");
    let hints: Vec<_> = errors.into_iter().map(|e| e.hint).collect();
    assert_eq!(hints, vec![exists, list]);
}

#[test]
fn a_negative_argument_written_without_brackets_gets_a_hint() {
    let hint = |src: &str| goal_err(src).hint;
    let brackets = Some(
        "a negative number as an argument is written in brackets, as in `f (-1)`: \
         `f -1` is the subtraction `f - 1`"
            .to_string(),
    );
    // `dir -1 0` is `dir - 1` followed by `0`.
    assert_eq!(hint("dir -1 0"), brackets);
    assert_eq!(hint("q X -12 Y"), brackets);
    assert_eq!(hint("f (g a) -1 (h b)"), brackets);
    assert_eq!(goal_err("dir -1 0").span, 7..8);
    // Not when the minus stands apart from the digits, or after `is`,
    // where `-1` is a number.
    assert_eq!(hint("dir - 1 0"), None);
    assert_eq!(hint("X is -1 2"), None);
    assert_eq!(hint("dir (-1) 0 0 )"), None);
    let (_, errors) = parse_program("dir 1 0.\ndir -1 0.\n");
    let hints: Vec<_> = errors.into_iter().map(|e| e.hint).collect();
    assert_eq!(hints, vec![brackets]);
}
