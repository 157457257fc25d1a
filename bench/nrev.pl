% The `nrev` workload (bench/nrev.lolli) in Prolog, for bench/run to time
% SWI-Prolog on the same computation: naive reverse of a 30-element list,
% 20,000 times over, in a deterministic loop.  The clauses are those of
% nrev.lolli, with Prolog's lists and its `( -> ; )`.
%
%   $ swipl -q -g main -t halt bench/nrev.pl
%   yes

app([], L, L).
app([H|T], L, [H|R]) :- app(T, L, R).

nrev([], []).
nrev([H|T], R) :- nrev(T, RT), app(RT, [H], R).

range(I, N, L) :- ( I < N -> J is I + 1, range(J, N, T), L = [I|T] ; L = [] ).

bench(0).
bench(K) :- K > 0, range(0, 30, L), nrev(L, _), K1 is K - 1, bench(K1).

main :- bench(20000), write(yes), nl.
