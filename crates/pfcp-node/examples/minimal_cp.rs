//! The smallest complete CP function (SMF) with overload control, against the UP function of
//! the `minimal_up` example on 127.0.0.1:8805 (start that one first).
//!
//! It offers 300 Session Establishment Requests per second for 2 s, three times what that UP
//! function serves; one in ten is for an emergency session, the others have ARP priority level
//! 12. Once the UP function reports its overload (an OCI on its responses), the endpoint sends
//! only the share the OCI allows and fails the others locally with `Error::Throttled`, as
//! though the UP had rejected them with cause 74 (TS 29.244 clause 6.2.4.4). Emergency
//! requests are throttled last.

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use pfcp_node::{CpConfig, Endpoint, EndpointConfig, LocalNode, RequestProfile};
use pfcp_overload::NodeKey;
use pfcp_wire::ie::{FSeid, Fqdn, NodeId, RecoveryTimeStamp};
use pfcp_wire::owned::parse_hex;
use pfcp_wire::{Encode, Header, MessageType};

const NODE_ID: &str = "smf1.example.net";
/// Create PDR (PDR ID 1, precedence 255, PDI: source interface access, FAR ID 1) and Create
/// FAR (FAR ID 1, apply action FORW): the rules every establishment must carry.
const RULES: &str = concat!(
    "0001001f003800020001001d0004000000ff000200050014000100006c000400000001",
    "0003000d006c000400000001002c000102"
);

/// The IEs of a Session Establishment Request: our Node ID, our F-SEID (SEID `cp_seid`), rules.
fn establishment(cp_seid: u64) -> Result<Bytes, Box<dyn std::error::Error + Send + Sync>> {
    let mut ies = Vec::new();
    NodeId::Fqdn(Fqdn::from_dotted(NODE_ID)?).encode(&mut ies)?;
    let fseid = FSeid {
        seid: cp_seid,
        ipv4: Some([127, 0, 0, 1].into()),
        ipv6: None,
    };
    fseid.encode(&mut ies)?;
    ies.extend(parse_hex(RULES).ok_or("bad hex")?);
    Ok(ies.into())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let up: SocketAddr = "127.0.0.1:8805".parse()?;
    // A CP function advertises OVRL and LOAD: it acts on the UP functions' OCIs and LCIs.
    let local = LocalNode::cp(NodeKey::fqdn(NODE_ID), RecoveryTimeStamp(0xE8F4_A2B1));
    let config = EndpointConfig::new(local).with_cp(CpConfig::default());
    let (cp, _channels) = Endpoint::bind(config, "127.0.0.1:0".parse()?).await?;
    if let Err(e) = cp.associate(up).await {
        return Err(format!("association with {up} failed ({e}): is minimal_up running?").into());
    }
    println!("associated with the UP function at {up}");

    let mut requests = Vec::new();
    for n in 1..=600u64 {
        // What the session is: the CP's overload control derives the message priority from it.
        let (class, profile) = if n % 10 == 0 {
            ("emergency", RequestProfile::emergency())
        } else {
            ("ARP 12", RequestProfile::default().with_arp(&[12]))
        };
        let (cp, ies) = (cp.clone(), establishment(n)?);
        requests.push(tokio::spawn(async move {
            // SEID 0 in the header: the UP has no session for it yet.
            let header = Header::new(MessageType::SESSION_ESTABLISHMENT_REQUEST).with_seid(0);
            let throttled = match cp.request_with(up, header, ies, profile).await {
                // Refused by this CP's own overload control: a Cause-74 response generated in
                // place of the UP's, never sent.
                Ok(r) if r.is_local() => {
                    println!("#{n} {class}: throttled locally ({:?})", r.cause);
                    true
                }
                Ok(r) => {
                    let msg = r.message()?;
                    let cause = msg.cause()?.map(|c| c.0).unwrap_or(0);
                    match msg.overload_control_information()? {
                        Some(oci) => println!(
                            "#{n} {class}: cause {cause}, OCI: reduce by {}% for {:?}",
                            oci.metric.percent(),
                            oci.period_of_validity.duration().unwrap_or(Duration::MAX)
                        ),
                        None => println!("#{n} {class}: cause {cause}"),
                    }
                    false
                }
                Err(e) => {
                    println!("#{n} {class}: {e}");
                    false
                }
            };
            Ok::<_, pfcp_wire::DecodeError>((class, throttled))
        }));
        tokio::time::sleep(Duration::from_millis(3)).await; // ~300 requests per second
    }
    let (mut throttled, mut emergency_throttled) = (0, 0);
    for r in requests {
        let (class, t) = r.await??;
        throttled += u32::from(t);
        emergency_throttled += u32::from(t && class == "emergency");
    }
    println!(
        "600 requests: {throttled} throttled locally, {emergency_throttled} of them emergency"
    );
    Ok(())
}
