//! Links the `memsync` binary as a fixed-address (non-PIE) executable on
//! Linux. A PIE build spends ~1.3 ms of every start-up applying 57,000
//! relocations to 1.5 MB of pointer tables (about 400 page faults), a third
//! of a hook's or `memsync search`'s whole run. Shared libraries, the heap,
//! the stack and mmaps stay randomised; only the binary's own image is fixed.
fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
