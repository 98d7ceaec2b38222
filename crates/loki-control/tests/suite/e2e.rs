//! End to end with the real binary: `loki serve` on a temp LOKI_HOME and SQLite, a real `loki
//! demo` run shipped to it while it runs, the run intact with its receipt verified.
