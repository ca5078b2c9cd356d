//! Classifier tests: one per rule of the default table.

use super::*;

fn classify(ctx: RequestContext<'_>) -> Classification {
    Classifier::default().classify(&ctx)
}

fn est() -> RequestContext<'static> {
    RequestContext {
        procedure: Some(Procedure::SessionEstablishment),
        ..RequestContext::default()
    }
}

#[test]
fn clause_6_2_4_5_1_emergency_and_emps_are_highest_and_exempt() {
    let c = classify(RequestContext {
        emergency: true,
        low_access_priority: true,
        ..est()
    });
    assert_eq!(c.rule, Rule::Emergency);
    assert_eq!(c.class.priority, MessagePriority::HIGHEST);
    assert!(c.class.exempt);
    let c = classify(RequestContext {
        emps: true,
        ..est()
    });
    assert_eq!(c.rule, Rule::Emps);
    assert!(c.class.exempt);
}

#[test]
fn clause_6_2_4_5_2_highest_arp_of_the_bearers_counts() {
    let c = classify(RequestContext {
        arp_levels: &[9, 3, 12],
        ..est()
    });
    assert_eq!(c.rule, Rule::Arp);
    assert_eq!(c.class.priority.value(), 3);
    // Invalid ARP levels (0, > 15) are ignored.
    let c = classify(RequestContext {
        arp_levels: &[0, 16],
        ..est()
    });
    assert_eq!(c.rule, Rule::Default);
    assert_eq!(c.class.priority.value(), 8);
}

#[test]
fn lapi_ranks_low_and_overrides_apply_first() {
    let c = classify(RequestContext {
        low_access_priority: true,
        arp_levels: &[2],
        ..est()
    });
    assert_eq!(c.rule, Rule::LowAccessPriority);
    assert_eq!(c.class.priority.value(), 14);
    let mut cfg = ClassifierConfig::default();
    cfg.dnn_overrides.push(("ims".into(), 2));
    cfg.snssai_overrides.push((Snssai { sst: 1, sd: None }, 5));
    let k = Classifier::new(cfg);
    let c = k.classify(&RequestContext {
        dnn: Some("IMS"),
        low_access_priority: true,
        ..est()
    });
    assert_eq!((c.rule, c.class.priority.value()), (Rule::Dnn, 2));
    let c = k.classify(&RequestContext {
        snssai: Some(Snssai { sst: 1, sd: None }),
        ..est()
    });
    assert_eq!((c.rule, c.class.priority.value()), (Rule::Snssai, 5));
}

#[test]
fn diameter_c_2_state_rules_order_the_procedures() {
    let arp = &[8u8][..];
    let p = |ctx: RequestContext<'_>| classify(ctx).class.priority.value();
    let new = p(RequestContext {
        arp_levels: arp,
        ..est()
    });
    let deletion = p(RequestContext {
        procedure: Some(Procedure::SessionDeletion),
        established: true,
        arp_levels: arp,
        ..RequestContext::default()
    });
    let established = p(RequestContext {
        procedure: Some(Procedure::SessionModification),
        established: true,
        arp_levels: arp,
        ..RequestContext::default()
    });
    let later = p(RequestContext {
        procedure: Some(Procedure::SessionModification),
        established: true,
        later_step: true,
        arp_levels: arp,
        ..RequestContext::default()
    });
    let additional = p(RequestContext {
        additional_session: true,
        arp_levels: arp,
        ..est()
    });
    let restoration = p(RequestContext {
        restoration: true,
        arp_levels: arp,
        ..est()
    });
    // Releasing resources ranks high; established work above new; a later step of admitted
    // work above plain established work; additional sessions and restoration storms below
    // a UE's first session (0 is the highest priority).
    assert!(deletion < new && established < new && later < established);
    assert!(additional > new && restoration > additional);
    assert_eq!(
        (new, deletion, established, later, additional, restoration),
        (8, 4, 6, 3, 10, 12)
    );
}

#[test]
fn priority_0_is_reserved_for_exempt_classes() {
    let c = classify(RequestContext {
        procedure: Some(Procedure::SessionDeletion),
        arp_levels: &[1],
        later_step: true,
        ..RequestContext::default()
    });
    assert_eq!(c.class.priority.value(), 1);
    assert!(!c.class.exempt);
}

#[test]
fn clause_7_2_2_4_1_defaults_and_responses() {
    let k = Classifier::default();
    assert_eq!(k.received_request(None).value(), 8);
    let p5 = MessagePriority::new(5).unwrap();
    assert_eq!(k.received_request(Some(p5)), p5);
    assert_eq!(Classifier::response(p5), p5);
    // Heartbeat and association are never throttled and rank highest.
    let c = k.classify(&RequestContext {
        procedure: Procedure::of(MessageType::HEARTBEAT_REQUEST),
        ..RequestContext::default()
    });
    assert_eq!(c.class.priority, MessagePriority::HIGHEST);
    assert!(!Procedure::Heartbeat.is_throttled());
    assert!(Procedure::SessionEstablishment.is_throttled());
}
