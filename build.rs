//! Link options of the `agentctl` binary.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    // Relative relocations packed (DT_RELR, glibc 2.36+, GNU ld 2.38+): the table the loader
    // reads at every start shrinks from 1.7 MB to a few KB, which is start-up time and
    // resident memory of every short command (`agentctl agents list`).
    let target = std::env::var("TARGET").unwrap_or_default();
    if target.ends_with("-linux-gnu") && std::env::var_os("AGENTCTL_NO_RELR").is_none() {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    println!("cargo:rerun-if-env-changed=AGENTCTL_NO_RELR");
}
