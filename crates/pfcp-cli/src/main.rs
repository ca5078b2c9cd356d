//! The `pfcp` command: decode and encode PFCP (3GPP TS 29.244) messages and captures, emulate
//! a UP function (`pfcp up`) and generate CP load (`pfcp cp`) with overload control.

fn main() -> std::process::ExitCode {
    pfcp_cli::cli::main()
}
