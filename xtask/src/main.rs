//! Project automation (the cargo-xtask pattern): `cargo xtask <command>`.
//!
//! * `ci`: everything CI checks, in order, failing fast: formatting, clippy (all targets, all
//!   features, then each library without default features), tests, rustdoc with warnings
//!   denied, `cargo package` of the library crates, then a fuzz smoke run.
//! * `codegen`: regenerate the generated source files (see `codegen.rs`).
//! * `fuzz [TARGET] [--secs N]`: run the fuzz targets (stable toolchain with
//!   `RUSTC_BOOTSTRAP=1`, as rustls's CI does); every target for `N` seconds (default 30).
//!
//! Only the standard library: xtask must build fast on a fresh machine.

// xtask times the steps it runs for the person at the terminal; the sans-IO clock rule of
// clippy.toml is for the protocol crates.
#![allow(clippy::disallowed_methods)]

use std::env;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

mod codegen;
mod judges;
mod tidy;

/// Library crates: checked without default features and packaged (dependencies first).
const LIBRARIES: &[&str] = &[
    "pfcp-wire",
    "pfcp-overload",
    "pfcp-throttle",
    "pfcp-node",
    "pfcp-sim",
];

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("ci") => ci(),
        Some("fuzz") => fuzz(&args[1..]),
        Some("codegen") => codegen::run(&root()),
        Some("tidy") => tidy::run(&root()).map_err(|e| e.to_string()),
        _ => {
            eprintln!(
                "usage: cargo xtask <ci | codegen | fuzz [TARGET] [--secs N] | tidy>\n\
                 \n  ci     formatting, clippy, tests, docs, packaging, fuzz smoke (what CI runs)\
                 \n  codegen regenerate generated sources (the IE type table)\
                 \n  fuzz   run fuzz targets (default: all, 30 s each)\
                 \n  tidy   repository hygiene checks"
            );
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The environment of every command xtask runs: a lean build. CI builds the workspace in
/// several configurations on a machine whose disk may be small; incremental state (1.6 GB of
/// the 4.6 GB a run left) buys nothing on a fresh clone, and full debug information in the
/// dependencies only makes the test binaries larger (a linker that runs out of disk dies
/// with SIGBUS, as one CI run did). Line tables keep file and line in panics' backtraces.
const LEAN_BUILD: &[(&str, &str)] = &[
    ("CARGO_INCREMENTAL", "0"),
    ("CARGO_PROFILE_DEV_DEBUG", "line-tables-only"),
];

fn run(dir: &Path, program: &str, args: &[&str], envs: &[(&str, &str)]) -> Result<(), String> {
    let shown = format!("{program} {}", args.join(" "));
    eprintln!("\n==> {shown}");
    let started = Instant::now();
    let status = Command::new(program)
        .args(args)
        .current_dir(dir)
        .envs(LEAN_BUILD.iter().copied())
        .envs(envs.iter().copied())
        .status()
        .map_err(|e| format!("cannot run `{shown}`: {e}"))?;
    eprintln!("<== {shown}: {status} in {:.1?}", started.elapsed());
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{shown}` failed ({status})"))
    }
}

fn ci() -> Result<(), String> {
    let root = root();
    let fuzz_dir = root.join("fuzz");
    let started = Instant::now();
    tidy::run(&root).map_err(|e| format!("tidy: {e}"))?;
    let judges = judges::preflight(&root)?;
    run(&root, "cargo", &["fmt", "--all", "--", "--check"], &[])?;
    if fuzz_dir.join("Cargo.toml").exists() {
        run(&fuzz_dir, "cargo", &["fmt", "--all", "--", "--check"], &[])?;
    }
    run(
        &root,
        "cargo",
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--all-features",
            "--locked",
            "--",
            "-D",
            "warnings",
        ],
        &[],
    )?;
    for lib in LIBRARIES {
        run(
            &root,
            "cargo",
            &[
                "clippy",
                "-p",
                lib,
                "--no-default-features",
                "--locked",
                "--",
                "-D",
                "warnings",
            ],
            &[],
        )?;
    }
    run(
        &root,
        "cargo",
        &["test", "--workspace", "--all-features", "--locked"],
        &judges,
    )?;
    // pfcp-node's sans-IO core (transactions, peers, guard, admission, CP pipeline) must build
    // and pass without tokio, as its crate docs promise.
    run(
        &root,
        "cargo",
        &[
            "test",
            "-p",
            "pfcp-node",
            "--no-default-features",
            "--locked",
        ],
        &judges,
    )?;
    run(
        &root,
        "cargo",
        &[
            "doc",
            "--workspace",
            "--no-deps",
            "--all-features",
            "--locked",
        ],
        &[("RUSTDOCFLAGS", "-D warnings")],
    )?;
    // In one invocation: cargo then verifies each crate against the others' packages (a
    // local registry overlay), as crates.io would after publishing them in this order.
    // Its own target directory, emptied first (see `forget_earlier_packages`).
    let verify_dir = root.join("target").join("package").join("verify");
    let verify_dir = verify_dir.to_string_lossy().into_owned();
    let mut package = vec![
        "package",
        "--locked",
        "--allow-dirty",
        "--target-dir",
        verify_dir.as_str(),
    ];
    for lib in LIBRARIES {
        package.extend(["-p", lib]);
    }
    forget_earlier_packages(&root)?;
    run(&root, "cargo", &package, &[])?;
    // The verification builds are not needed again; the fuzz build that follows needs the
    // room.
    forget_earlier_packages(&root)?;
    if fuzz_dir.join("Cargo.toml").exists() {
        fuzz(&["--secs".to_string(), "30".to_string()])?;
    }
    eprintln!("\nxtask ci: all checks passed in {:.1?}", started.elapsed());
    Ok(())
}

/// Remove what an earlier `cargo package` left of this workspace's crates: its packages and
/// verification builds (`target/package`, the verification's own target directory) and the
/// sources it extracted from its overlay registry (`$CARGO_HOME/registry/src/-<hash>/
/// <crate>-<version>`). Cargo takes a registry crate of a given version to be immutable and
/// reuses both: after a change, the verification of a dependent crate would compile against
/// the old build of a dependency of the same version (0.1.0 until the first release) and
/// fail, or pass, for the wrong reason.
fn forget_earlier_packages(root: &Path) -> Result<(), String> {
    let built = root.join("target").join("package");
    if built.exists() {
        std::fs::remove_dir_all(&built).map_err(|e| format!("{}: {e}", built.display()))?;
    }
    let home = env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let Some(src) = home.map(|h| h.join("registry").join("src")) else {
        return Ok(());
    };
    let Ok(registries) = std::fs::read_dir(&src) else {
        return Ok(());
    };
    for registry in registries.flatten() {
        // Local registries have no name: their directory is `-<hash>`.
        if !registry.file_name().to_string_lossy().starts_with('-') {
            continue;
        }
        let Ok(crates) = std::fs::read_dir(registry.path()) else {
            continue;
        };
        for krate in crates.flatten() {
            let name = krate.file_name().to_string_lossy().into_owned();
            if LIBRARIES
                .iter()
                .any(|lib| name.starts_with(&format!("{lib}-")))
            {
                std::fs::remove_dir_all(krate.path())
                    .map_err(|e| format!("{}: {e}", krate.path().display()))?;
            }
        }
    }
    Ok(())
}

fn fuzz(args: &[String]) -> Result<(), String> {
    let root = root();
    let mut secs = "30".to_string();
    let mut target: Option<String> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--secs" => {
                secs = it
                    .next()
                    .cloned()
                    .ok_or_else(|| "--secs needs a number".to_string())?;
                secs.parse::<u64>()
                    .map_err(|_| format!("--secs: not a number: {secs}"))?;
            }
            t if !t.starts_with('-') => target = Some(t.to_string()),
            other => return Err(format!("unknown fuzz option {other}")),
        }
    }
    let have_cargo_fuzz = Command::new("cargo")
        .args(["fuzz", "--version"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !have_cargo_fuzz {
        run(&root, "cargo", &["install", "cargo-fuzz", "--locked"], &[])?;
    }
    let targets: Vec<String> = match target {
        Some(t) => vec![t],
        None => {
            let out = Command::new("cargo")
                .args(["fuzz", "list"])
                .current_dir(&root)
                .output()
                .map_err(|e| format!("cargo fuzz list: {e}"))?;
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(String::from)
                .collect()
        }
    };
    if targets.is_empty() {
        return Err("no fuzz targets found".into());
    }
    let bootstrap = [("RUSTC_BOOTSTRAP", "1")];
    // Build once for all targets, then run each on its seed corpus. The working corpus goes to
    // a scratch directory so the committed seeds stay as they are.
    run(&root, "cargo", &["fuzz", "build", "-O"], &bootstrap)?;
    let scratch = env::temp_dir().join("pfcp-fuzz-corpus");
    for t in &targets {
        let work = scratch.join(t);
        std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
        let seeds = root.join("fuzz").join("corpus").join(t);
        let work_s = work.to_string_lossy().into_owned();
        let seeds_s = seeds.to_string_lossy().into_owned();
        let max_time = format!("-max_total_time={secs}");
        let mut cmd_args = vec!["fuzz", "run", "-O", t.as_str(), work_s.as_str()];
        if seeds.exists() {
            cmd_args.push(seeds_s.as_str());
        }
        cmd_args.extend([
            "--",
            max_time.as_str(),
            "-max_len=4096",
            "-rss_limit_mb=2048",
        ]);
        run(&root, "cargo", &cmd_args, &bootstrap)?;
    }
    Ok(())
}
