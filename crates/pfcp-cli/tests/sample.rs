//! The committed sample capture `samples/overload.pcap`: up to date with the code that makes
//! it, decoded as intended by us, and read by Wireshark without any complaint.

#[allow(dead_code, unreachable_pub)]
mod support;

use std::path::PathBuf;
use std::process::Command;

use pfcp_cli::decode::{decode_input, DecodeOptions, Format};
use serde_json::{json, Value};

use support::{have_tshark, oracle_dir};

fn committed() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../samples/overload.pcap")
}

fn decode(format: Format) -> Vec<Value> {
    let file = std::fs::File::open(committed()).expect("samples/overload.pcap is committed");
    let mut out = Vec::new();
    let mut diag = Vec::new();
    let opts = DecodeOptions {
        format,
        ..DecodeOptions::default()
    };
    let stats = decode_input("overload.pcap", file, &mut out, &mut diag, &opts).unwrap();
    assert!(!stats.any_failure(), "{stats:?}");
    assert!(diag.is_empty(), "{}", String::from_utf8_lossy(&diag));
    let text = String::from_utf8(out).unwrap();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn sample_capture_is_up_to_date() {
    let tmp = tempfile::tempdir().unwrap();
    let fresh = tmp.path().join("overload.pcap");
    let out = Command::new(env!("CARGO_BIN_EXE_pfcp"))
        .arg("sample-pcap")
        .arg(&fresh)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let committed = std::fs::read(committed()).expect("samples/overload.pcap is committed");
    let fresh = std::fs::read(&fresh).unwrap();
    assert!(
        fresh == committed,
        "regenerate: cargo run -p pfcp-cli -- sample-pcap samples/overload.pcap"
    );
}

#[test]
fn sample_decodes_as_built() {
    let lines = decode(Format::Json);
    let types: Vec<u64> = lines
        .iter()
        .map(|l| l["message_type"].as_u64().unwrap())
        .collect();
    assert_eq!(types, [1, 2, 5, 6, 50, 51, 54, 54]);
    let frames: Vec<u64> = lines.iter().map(|l| l["frame"].as_u64().unwrap()).collect();
    assert_eq!(frames, [1, 2, 3, 4, 5, 6, 7, 7]);
    assert_eq!(lines[7]["index"], json!(1));
    assert_eq!(lines[6]["follow_on"], json!(true));
    assert_eq!(lines[0]["src"], json!("127.0.0.1:8805"));
    assert_eq!(lines[0]["dst"], json!("127.0.0.2:8805"));
    let cpff = &lines[2]["ies"][2];
    assert_eq!(cpff["name"], json!("CP Function Features"));
    assert_eq!(cpff["decoded"]["features"], json!(["LOAD", "OVRL"]));
    let rejection = &lines[5];
    assert_eq!(rejection["priority"], json!(3));
    assert_eq!(rejection["ies"][1]["decoded"], json!(74));
    // OCI and LCI are grouped: their members, each typed (clauses 7.5.3.3-4, 8.2.33-36).
    let member = |ie: &Value, name: &str| -> Value {
        ie["ies"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == json!(name))
            .unwrap_or_else(|| panic!("no {name} in {ie}"))["decoded"]
            .clone()
    };
    let oci = &rejection["ies"][3];
    assert_eq!(oci["name"], json!("Overload Control Information"));
    // OCI Flags with AOCI (bit 1), Metric 30 %, Timer 0x22: unit 1 minute, value 2.
    assert_eq!(member(oci, "OCI Flags"), json!(1));
    assert_eq!(member(oci, "Metric"), json!(30));
    assert_eq!(member(oci, "Timer"), json!(0x22));
    assert_eq!(member(&rejection["ies"][2], "Metric"), json!(85));
}

/// `tshark -V` reads every frame as PFCP, with no "Malformed" and no error or warning expert
/// info, and its field values agree with our summaries.
#[test]
fn wireshark_reads_the_sample_cleanly() {
    let test = "wireshark_reads_the_sample_cleanly";
    if !have_tshark(test) {
        return;
    }
    let out = Command::new("tshark")
        .args(["-n", "-r"])
        .arg(committed())
        .arg("-V")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("Malformed"), "{text}");
    assert!(!text.contains("Expert Info (Error"), "{text}");
    assert!(!text.contains("Expert Info (Warning"), "{text}");
    assert_eq!(
        text.matches("\nFrame ").count() + usize::from(text.starts_with("Frame ")),
        7
    );
    assert_eq!(
        text.matches("Packet Forwarding Control Protocol").count(),
        8,
        "{text}"
    );
    for name in [
        "Overload Control Information",
        "Load Control Information",
        "OCI Flags",
    ] {
        assert!(text.contains(name), "tshark shows no {name}");
    }

    // Field by field: Wireshark's summary of each single-message frame equals ours.
    let Some(dir) = oracle_dir(test) else {
        return;
    };
    let frames = pfcp_cli::sample::sample_frames().unwrap();
    let input: String = frames
        .iter()
        .map(|f| format!("{}\n", pfcp_cli::hex::encode(&f.payload)))
        .collect();
    let tmp = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(tmp.path(), input).unwrap();
    let out = Command::new("python3")
        .arg(dir.join("tshark_fields.py"))
        .arg(tmp.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ws: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ours = decode(Format::OracleSummary);
    assert_eq!(ws.len(), 7);
    for (i, w) in ws.iter().enumerate().take(6) {
        assert_eq!(w["ws_flag"], json!(false), "frame {}: {w}", i + 1);
        assert_eq!(w["expect"], ours[i], "frame {}", i + 1);
    }
    // The FO bundle: Wireshark decodes both messages (and flags the datagram only because
    // tshark_fields.py counts more than one message as a flag).
    assert_eq!(ws[6]["pfcp_messages"], json!(2));
    assert_eq!(ws[6]["ws_malformed"], json!(false));
    assert_eq!(ws[6]["ws_error"], json!(false));
    assert_eq!(ws[6]["expect"], ours[6]);
    assert_eq!(ws[6]["extra_messages"][0], ours[7]);
}
