//! Shared by `benches/codec.rs` (criterion, wall time) and `examples/icount.rs` (instruction
//! counts under callgrind): the message set, every operation that is timed, and the
//! conformance gate that runs before any timing.
//!
//! The message set is written as hex from the TS 29.244 layouts (clause 7.2.2 header,
//! clause 8.2 IEs; digest sections 1.6, 4.11, 4.14). Both encoders must reproduce each vector
//! byte for byte and both decoders must parse it, except where rs-pfcp 0.5 cannot (see
//! [`Msg::rs_parses`] and `docs/benchmarks.md`).
//!
//! This file holds the application values both encoders start from; `message_set` the messages
//! and their bytes, `wire` and `rs` the timed operations of pfcp-wire and rs-pfcp, `floor` a
//! minimal TLV walk to compare them with, `gate` the conformance gate.

#![allow(dead_code)] // each of the two binaries uses a subset

use std::net::Ipv4Addr;

use pfcp_wire::ie::{
    ControlSequenceNumber, LoadControlInformation, Metric, OciFlags, OverloadControlInformation,
    Timer,
};

// No `#[path]` on the children: `examples/icount.rs` includes this file by its real name,
// `mod.rs`, so they resolve beside it there as here.
mod floor;
mod gate;
mod message_set;
mod rs;
mod wire;

pub(crate) use floor::{bare_header, bare_walk};
pub(crate) use gate::conformance_gate;
pub(crate) use message_set::Msg;
pub(crate) use rs::{
    rs_build, rs_encode, rs_header, rs_marshal_prebuilt, rs_parse_walk, rs_parse_walk_children,
    rs_typed, rs_typed_lci,
};
pub(crate) use wire::{
    wire_decode_top, wire_decode_walk, wire_encode, wire_header, wire_typed_encode, wire_typed_lci,
    wire_typed_oci_lci,
};

// ---------------------------------------------------------------------------------------------
// Application values the encoders start from (passed through black_box each iteration so no
// encoder can constant-fold the message).
// ---------------------------------------------------------------------------------------------

pub(crate) struct Pdr {
    id: u16,
    precedence: u32,
    source_interface: u8,
    f_teid: Option<(u32, Ipv4Addr)>,
    ue_ip: Option<Ipv4Addr>,
    outer_header_removal: Option<u8>,
    far_id: u32,
}

pub(crate) struct Far {
    id: u32,
    apply_action: u8,
    destination_interface: u8,
    network_instance: bool,
    outer_header_creation: Option<(u32, Ipv4Addr)>,
}

pub(crate) struct Params {
    recovery: u32,
    cp_addr: Ipv4Addr,
    up_addr: Ipv4Addr,
    cp_seid: u64,
    up_seid: u64,
    network_instance: &'static str,
    pdrs2: [Pdr; 2],
    fars2: [Far; 2],
    pdrs10: [Pdr; 10],
    fars10: [Far; 10],
    oci: OverloadControlInformation,
    lci: LoadControlInformation,
}

const fn uplink_pdr(id: u16) -> Pdr {
    Pdr {
        id,
        precedence: 100 * id as u32,
        source_interface: 0,
        f_teid: Some((0x1000 + id as u32 - 1, Ipv4Addr::new(198, 51, 100, 1))),
        ue_ip: None,
        outer_header_removal: Some(0),
        far_id: id as u32,
    }
}

const fn downlink_pdr(id: u16) -> Pdr {
    Pdr {
        id,
        precedence: 100 * id as u32,
        source_interface: 1,
        f_teid: None,
        ue_ip: Some(Ipv4Addr::new(10, 45, 0, id as u8)),
        outer_header_removal: None,
        far_id: id as u32,
    }
}

const fn uplink_far(id: u32) -> Far {
    Far {
        id,
        apply_action: 0x02,
        destination_interface: 1,
        network_instance: true,
        outer_header_creation: None,
    }
}

const fn downlink_far(id: u32) -> Far {
    Far {
        id,
        apply_action: 0x02,
        destination_interface: 0,
        network_instance: false,
        outer_header_creation: Some((0x2000 + id - 2, Ipv4Addr::new(198, 51, 100, 20))),
    }
}

pub(crate) const P: Params = Params {
    recovery: 0xE8F4_A2B0,
    cp_addr: Ipv4Addr::new(192, 0, 2, 10),
    up_addr: Ipv4Addr::new(198, 51, 100, 1),
    cp_seid: 1,
    up_seid: 0x1122_3344_5566_7788,
    network_instance: "internet",
    pdrs2: [uplink_pdr(1), downlink_pdr(2)],
    fars2: [uplink_far(1), downlink_far(2)],
    pdrs10: [
        uplink_pdr(1),
        downlink_pdr(2),
        uplink_pdr(3),
        downlink_pdr(4),
        uplink_pdr(5),
        downlink_pdr(6),
        uplink_pdr(7),
        downlink_pdr(8),
        uplink_pdr(9),
        downlink_pdr(10),
    ],
    fars10: [
        uplink_far(1),
        downlink_far(2),
        uplink_far(3),
        downlink_far(4),
        uplink_far(5),
        downlink_far(6),
        uplink_far(7),
        downlink_far(8),
        uplink_far(9),
        downlink_far(10),
    ],
    oci: OverloadControlInformation {
        sequence_number: ControlSequenceNumber(5),
        metric: Metric::from_raw(30),
        period_of_validity: Timer(0x22),
        flags: Some(OciFlags::AOCI),
    },
    lci: LoadControlInformation {
        sequence_number: ControlSequenceNumber(7),
        metric: Metric::from_raw(55),
    },
};
