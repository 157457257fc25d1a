//! A built-in predicate written in Rust, called from Lolli.
//!
//! `divisors N Ds` is computed in Rust (Ds is the list of divisors of N);
//! `perfect N` is then defined in Lolli on top of it, with the prelude's
//! list predicates and `findall`.  Run with `cargo run --example custom_builtin`.

use lolli::{Session, Value};

fn main() -> Result<(), String> {
    let mut s = Session::new();
    s.register_builtin(
        "divisors",
        2,
        Box::new(|args: &[Value]| {
            let Value::Int(n) = args[0] else {
                return Err("divisors: the first argument must be an integer".into());
            };
            if n < 1 {
                return Ok(None);
            }
            let ds = (1..n).filter(|d| n % d == 0).map(Value::Int).collect();
            Ok(Some(vec![Value::Int(n), Value::list(ds)]))
        }),
    );
    s.load_str(
        "perfect",
        "sum nil 0.
         sum (X :: Xs) S :- sum Xs S0, S is S0 + X.
         perfect N :- divisors N Ds, sum Ds N.",
    )
    .map_err(|e| s.render(&e))?;

    let found = s
        .query("findall N (between 1 500 N, perfect N) Ps")
        .map_err(|e| format!("{e:?}"))?
        .next()
        .ok_or("no answer")?
        .map_err(|e| format!("{e:?}"))?;
    let perfect = found
        .value("Ps")
        .and_then(Value::as_list)
        .unwrap_or_default();
    println!("perfect numbers up to 500: {perfect:?}");
    assert_eq!(
        perfect,
        vec![Value::Int(6), Value::Int(28), Value::Int(496)]
    );
    Ok(())
}
