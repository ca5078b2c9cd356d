//! The `pfcp` command: decode and encode PFCP (3GPP TS 29.244) messages and captures.

fn main() -> std::process::ExitCode {
    pfcp_cli::cli::main()
}
