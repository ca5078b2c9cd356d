//! The Rust text of each message type (its struct, builder, decoder and encoder), the
//! `AnyMessage` dispatch enum and the table of mandatory IEs, from the parsed tables of
//! `super` (`codegen/messages.rs`).

use std::fmt::Write as _;

use super::{example, Message, Presence};

pub(super) fn message(s: &mut String, m: &Message) -> Result<(), String> {
    let name = &m.name;
    let table = m.table_ref();
    let fields_ty = format!("{name}Fields");
    let listed = format!("{}_listed", m.snake());
    let _ = write!(
        s,
        "\n// {}\n\n/// PFCP {} ([`MessageType::{}`], TS 29.244 {table}).\n///\n/// {}\n///\n",
        "-".repeat(92),
        spaced(name),
        m.constant,
        m.description
    );
    s.push_str(
        "/// The IEs of the table are fields, in its order (the order [`Self::encode`] writes them):\n\
         /// a mandatory IE as its value, a conditional or optional one as an `Option`, one the\n\
         /// table lets repeat as an [`IeList`]. See the [module docs](crate::msg) for the rules of\n\
         /// decoding and encoding.\n\
         ///\n\
         /// # Example\n\
         ///\n\
         /// ```\n",
    );
    for line in example(m)? {
        if line.is_empty() {
            s.push_str("///\n");
        } else {
            let _ = writeln!(s, "/// {line}");
        }
    }
    s.push_str("/// ```\n");
    let _ = writeln!(
        s,
        "#[derive(Debug, Clone)]\n#[non_exhaustive]\npub struct {name}<'a> {{"
    );
    let s_flag = if m.session() {
        "S=1, the SEID is the receiver's"
    } else {
        "S=0"
    };
    let _ = writeln!(
        s,
        "    /// The header ({s_flag}). The encoder writes this struct's message type and the\n    \
         /// Message Length of what it writes."
    );
    s.push_str("    pub header: Header,\n");
    for f in &m.fields {
        let _ = writeln!(s, "    /// {}", f.doc());
        let _ = writeln!(s, "    pub {}: {},", f.name, f.field_type());
    }
    let _ = writeln!(
        s,
        "    /// The IEs {table} does not list (of a later release, vendor-specific, or of another\n    \
         /// message), in the order received; written after the others.\n    \
         pub other: OtherIes<'a>,\n}}\n"
    );

    // Builder, decoder, encoder.
    let _ = writeln!(s, "impl<'a> {name}<'a> {{");
    let _ = writeln!(
        s,
        "    /// The message type.\n    pub const MESSAGE_TYPE: MessageType = MessageType::{};\n",
        m.constant
    );
    let params: Vec<String> = m
        .mandatory()
        .map(|f| {
            if f.repeated {
                format!("{}: impl Into<IeList<'a, {}>>", f.name, f.item_type())
            } else {
                format!("{}: {}", f.name, f.item_type())
            }
        })
        .collect();
    let seid = if m.session() { " and SEID 0" } else { "" };
    let _ = writeln!(
        s,
        "    /// The message with its mandatory IEs and none of the others; a header with sequence\n    \
         /// number 0{seid}."
    );
    if params.is_empty() {
        s.push_str("    #[allow(clippy::new_without_default)]\n");
    }
    let _ = writeln!(
        s,
        "    #[inline]\n    pub fn new({}) -> Self {{",
        params.join(", ")
    );
    let _ = writeln!(
        s,
        "        {name} {{\n            header: walk::new_header(Self::MESSAGE_TYPE),"
    );
    for f in &m.fields {
        let v = match (f.presence, f.repeated) {
            (Presence::M, true) => format!("{}.into()", f.name),
            (Presence::M, false) => f.name.clone(),
            (_, true) => "IeList::new()".to_string(),
            (_, false) => "None".to_string(),
        };
        if v == f.name {
            let _ = writeln!(s, "            {},", f.name);
        } else {
            let _ = writeln!(s, "            {}: {v},", f.name);
        }
    }
    s.push_str("            other: OtherIes::new(),\n        }\n    }\n");
    for f in m.fields.iter().filter(|f| f.presence != Presence::M) {
        let _ = writeln!(
            s,
            "\n    /// With {} ({}).\n    #[must_use]\n    #[inline]",
            f.name, f.label
        );
        if f.repeated {
            let _ = writeln!(
                s,
                "    pub fn with_{n}(mut self, {n}: impl Into<IeList<'a, {t}>>) -> Self {{\n        \
                 self.{n} = {n}.into();\n        self\n    }}",
                n = f.name,
                t = f.item_type()
            );
        } else {
            let _ = writeln!(
                s,
                "    pub fn with_{n}(mut self, {n}: {t}) -> Self {{\n        \
                 self.{n} = Some({n});\n        self\n    }}",
                n = f.name,
                t = f.item_type()
            );
        }
    }
    s.push_str(
        "\n    /// With the IEs to write after the table's ([`OtherIes`]).\n    #[must_use]\n    #[inline]\n    \
         pub fn with_other(mut self, other: impl Into<OtherIes<'a>>) -> Self {\n        \
         self.other = other.into();\n        self\n    }\n\n    \
         /// With the header's sequence number.\n    #[must_use]\n    #[inline]\n    \
         pub fn with_sequence(mut self, sequence: SequenceNumber) -> Self {\n        \
         self.header.sequence = sequence;\n        self\n    }\n",
    );
    if m.session() {
        s.push_str(
            "\n    /// With the header's SEID: the one the receiver allocated (clause 7.2.2.4.2).\n    \
             #[must_use]\n    #[inline]\n    pub fn with_seid(mut self, seid: u64) -> Self {\n        \
             self.header.seid = Some(seid);\n        self\n    }\n\n    \
             /// With a message priority in the header (MP=1, clause 7.2.2.4.1).\n    \
             #[must_use]\n    #[inline]\n    pub fn with_priority(mut self, priority: MessagePriority) -> Self {\n        \
             self.header.priority = Some(priority);\n        self\n    }\n",
        );
    }
    let _ = write!(
        s,
        "\n    /// The message in `message` (decoded by [`Message::decode`]), in one walk over its IEs.\n    \
         /// `Err` names what to answer with ([`DecodeError::cause`], [`DecodeError::offending_ie`]).\n    \
         pub fn decode(message: &Message<'a>) -> Result<Self, DecodeError> {{\n        \
         walk::decode::<{fields_ty}<'a>, _>(message, |m| m)\n    }}\n\n    \
         /// The message in `bytes`: [`Message::decode`] and [`Self::decode`] in one walk, with\n    \
         /// their result (the same value, or the same error).\n    \
         pub fn parse(bytes: &'a [u8]) -> Result<Self, DecodeError> {{\n        \
         walk::parse::<{fields_ty}<'a>, _>(bytes, DecodeLimits::DEFAULT, |m| m)\n    }}\n\n    \
         /// [`Self::parse`] with explicit resource limits.\n    \
         pub fn parse_with_limits(bytes: &'a [u8], limits: DecodeLimits) -> Result<Self, DecodeError> {{\n        \
         walk::parse::<{fields_ty}<'a>, _>(bytes, limits, |m| m)\n    }}\n\n    \
         /// The octets [`Self::encode`] writes.\n    \
         pub fn encoded_len(&self) -> usize {{\n        \
         self.header.encoded_len()\n"
    );
    for f in &m.fields {
        let _ = writeln!(s, "            + Encode::encoded_len(&self.{})", f.name);
    }
    s.push_str("            + Encode::encoded_len(&self.other)\n    }\n\n");
    s.push_str(
        "    /// Write the message into `out` in one pass, the IEs in the table's order, then\n    \
         /// [`Self::other`](#structfield.other); returns its length.\n    \
         pub fn encode<S: Sink + ?Sized>(&self, out: &mut S) -> Result<usize, EncodeError> {\n        \
         let header = Header {\n            message_type: Self::MESSAGE_TYPE,\n            \
         ..self.header\n        };\n        \
         let mut w = MessageWriter::begin(out, &header)?;\n",
    );
    for f in &m.fields {
        let _ = writeln!(s, "        w.ie(&self.{})?;", f.name);
    }
    s.push_str(
        "        w.ie(&self.other)?;\n        w.finish()\n    }\n\n    \
         /// Write the message at the start of `buf`; returns its length.\n    \
         pub fn encode_into(&self, buf: &mut [u8]) -> Result<usize, EncodeError> {\n        \
         TypedMessage::encode_into(self, buf)\n    }\n\n    \
         /// The message's octets.\n    \
         pub fn to_vec(&self) -> Result<Vec<u8>, EncodeError> {\n        \
         TypedMessage::to_vec(self)\n    }\n}\n\n",
    );

    // Equality.
    let _ = writeln!(
        s,
        "/// Equal when the headers are (but for the Message Length, which follows from the IEs) and\n\
         /// each field holds the same IEs ([`MessageIe::same`]).\n\
         impl PartialEq for {name}<'_> {{\n    fn eq(&self, other: &Self) -> bool {{\n        \
         walk::same_header(&self.header, &other.header)"
    );
    for f in &m.fields {
        let n = &f.name;
        let cmp = match (f.presence, f.repeated) {
            (_, true) => format!("self.{n} == other.{n}"),
            (Presence::M, false) => format!("self.{n}.same(&other.{n})"),
            (_, false) => format!("same_option(&self.{n}, &other.{n})"),
        };
        let _ = writeln!(s, "            && {cmp}");
    }
    let _ = writeln!(
        s,
        "            && self.other == other.other\n    }}\n}}\n\nimpl Eq for {name}<'_> {{}}\n"
    );

    // The trait.
    let _ = writeln!(
        s,
        "impl<'a> TypedMessage<'a> for {name}<'a> {{\n    \
         const MESSAGE_TYPE: MessageType = MessageType::{c};\n\n    \
         fn decode(message: &Message<'a>) -> Result<Self, DecodeError> {{\n        \
         Self::decode(message)\n    }}\n\n    \
         fn parse_with_limits(bytes: &'a [u8], limits: DecodeLimits) -> Result<Self, DecodeError> {{\n        \
         Self::parse_with_limits(bytes, limits)\n    }}\n\n    \
         fn header(&self) -> &Header {{\n        &self.header\n    }}\n\n    \
         fn encoded_len(&self) -> usize {{\n        Self::encoded_len(self)\n    }}\n\n    \
         fn encode<S: Sink + ?Sized>(&self, out: &mut S) -> Result<usize, EncodeError> {{\n        \
         Self::encode(self, out)\n    }}\n}}\n",
        c = m.constant
    );

    // The walk.
    let _ = writeln!(
        s,
        "/// The decode state of [`{name}`].\n#[derive(Default)]\nstruct {fields_ty}<'a> {{"
    );
    // The lifetime of the message, whether or not a field borrows from it.
    s.push_str("    _message: core::marker::PhantomData<&'a ()>,\n");
    for f in &m.fields {
        let _ = writeln!(s, "    {}: {},", f.name, f.walk_type());
    }
    s.push_str("}\n\n");
    let _ = writeln!(
        s,
        "impl<'a> Fields<'a> for {fields_ty}<'a> {{\n    type Message = {name}<'a>;\n    \
         const MESSAGE_TYPE: MessageType = MessageType::{};\n\n    \
         #[inline(always)]\n    fn visit(&mut self, walk: &mut Walk<'a>, ie: &RawIe<'a>) {{",
        m.constant
    );
    if m.fields.is_empty() {
        s.push_str("        walk.other(ie);\n    }\n\n");
    } else {
        s.push_str("        match ie.ie_type() {\n");
        let mut bit = 0;
        let mut rank = 0;
        for f in &m.fields {
            let r = (f.presence == Presence::M).then_some(rank);
            if r.is_some() {
                rank += 1;
            }
            let presence = f.presence_expr(r);
            if f.repeated {
                let _ = writeln!(
                    s,
                    "            IeType::{} => walk.repeated::<{}>(&mut self.{}, ie, {presence}),",
                    f.ie,
                    f.item_type(),
                    f.name
                );
            } else {
                let _ = writeln!(
                    s,
                    "            IeType::{} => walk.single(&mut self.{}, ie, 1 << {bit}, {presence}),",
                    f.ie, f.name
                );
                bit += 1;
            }
        }
        s.push_str("            _ => walk.other(ie),\n        }\n    }\n\n");
    }
    let _ = writeln!(
        s,
        "    #[inline(always)]\n    \
         fn finish<R>(self, walk: Walk<'a>, message: &Message<'a>, wrap: impl FnOnce({name}<'a>) -> R) -> Result<R, DecodeError> {{"
    );
    for (rank, f) in m.mandatory().enumerate() {
        if f.repeated {
            let _ = writeln!(
                s,
                "        walk.mandatory_repeated(&self.{}, {rank}, IeType::{}, message)?;",
                f.name, f.ie
            );
        } else {
            let _ = writeln!(
                s,
                "        let {n} = walk.mandatory(self.{n}, {rank}, IeType::{}, message)?;",
                f.ie,
                n = f.name
            );
        }
    }
    let _ = writeln!(
        s,
        "        walk.conditional(message)?;\n        Ok(wrap({name} {{\n            \
         header: *message.header(),"
    );
    for f in &m.fields {
        let n = &f.name;
        match (f.presence, f.repeated) {
            (_, true) => {
                let _ = writeln!(s, "            {n}: walk.list(self.{n}, IeType::{}),", f.ie);
            }
            (Presence::M, false) => {
                let _ = writeln!(s, "            {n},");
            }
            (_, false) => {
                let _ = writeln!(s, "            {n}: self.{n},");
            }
        }
    }
    let _ = writeln!(
        s,
        "            other: walk.others({listed}),\n        }}))\n    }}\n}}\n"
    );
    let _ = writeln!(s, "/// Whether {table} lists IEs of type `t`.");
    if m.fields.is_empty() {
        let _ = writeln!(s, "fn {listed}(_: IeType) -> bool {{\n    false\n}}");
    } else {
        let types: Vec<String> = m
            .fields
            .iter()
            .map(|f| format!("IeType::{}", f.ie))
            .collect();
        let _ = writeln!(
            s,
            "fn {listed}(t: IeType) -> bool {{\n    matches!(\n        t,\n        {}\n    )\n}}",
            types.join("\n            | ")
        );
    }
    Ok(())
}

/// `SessionEstablishmentRequest` -> `Session Establishment Request`.
fn spaced(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if i > 0 && c.is_ascii_uppercase() {
            out.push(' ');
        }
        out.push(c);
    }
    out.replace("Pfd", "PFD")
}

pub(super) fn any_message(s: &mut String, messages: &[Message]) {
    s.push_str(
        "\n// --------------------------------------------------------------------------------------------\n\n\
         /// A message of any type TS 29.244 defines, typed: what [`Message::typed`] and\n\
         /// [`AnyMessage::parse`] give, to `match` on.\n\
         ///\n\
         /// ```\n\
         /// use pfcp_wire::msg::{AnyMessage, HeartbeatRequest};\n\
         /// use pfcp_wire::ie::RecoveryTimeStamp;\n\
         ///\n\
         /// let bytes = HeartbeatRequest::new(RecoveryTimeStamp(0xE8F4_A2B0)).to_vec()?;\n\
         /// match AnyMessage::parse(&bytes)? {\n\
         ///     AnyMessage::HeartbeatRequest(hb) => assert_eq!(hb.recovery_time_stamp.0, 0xE8F4_A2B0),\n\
         ///     other => panic!(\"{:?}\", other.message_type()),\n\
         /// }\n\
         /// # Ok::<(), Box<dyn std::error::Error>>(())\n\
         /// ```\n\
         #[derive(Debug, Clone, PartialEq, Eq)]\n\
         #[non_exhaustive]\n\
         #[allow(clippy::large_enum_variant)] // the variants are views: moved once, not stored\n\
         pub enum AnyMessage<'a> {\n",
    );
    for m in messages {
        let _ = writeln!(
            s,
            "    /// {} ([`MessageType::{}`]).\n    {n}({n}<'a>),",
            spaced(&m.name),
            m.constant,
            n = m.name
        );
    }
    s.push_str(
        "}\n\nimpl<'a> AnyMessage<'a> {\n    \
         /// The typed form of `message` (decoded by [`Message::decode`]), by its message type.\n    \
         /// An unknown type is [`DecodeErrorKind::UnknownMessageType`], as for\n    \
         /// [`Message::validate`].\n    \
         pub fn decode(message: &Message<'a>) -> Result<Self, DecodeError> {\n        \
         match message.message_type() {\n",
    );
    for m in messages {
        let _ = writeln!(
            s,
            "            MessageType::{} => walk::decode::<{n}Fields<'a>, _>(message, AnyMessage::{n}),",
            m.constant,
            n = m.name
        );
    }
    s.push_str(
        "            t => Err(DecodeError::new(DecodeErrorKind::UnknownMessageType(t.0), message.offset())\n                \
         .with_header(message.summary())),\n        }\n    }\n\n    \
         /// The message in `bytes`, typed: [`Message::decode`] and [`AnyMessage::decode`] in one\n    \
         /// walk, with their result.\n    \
         pub fn parse(bytes: &'a [u8]) -> Result<Self, DecodeError> {\n        \
         Self::parse_with_limits(bytes, DecodeLimits::DEFAULT)\n    }\n\n    \
         /// [`AnyMessage::parse`] with explicit resource limits.\n    \
         pub fn parse_with_limits(bytes: &'a [u8], limits: DecodeLimits) -> Result<Self, DecodeError> {\n        \
         // The type octet picks the walk; the header is checked by it.\n        \
         match bytes.get(1).copied().map(MessageType) {\n",
    );
    for m in messages {
        let _ = writeln!(
            s,
            "            Some(MessageType::{}) => walk::parse::<{n}Fields<'a>, _>(bytes, limits, AnyMessage::{n}),",
            m.constant,
            n = m.name
        );
    }
    s.push_str(
        "            _ => Self::decode(&Message::decode_with_limits(bytes, limits)?),\n        }\n    }\n\n    \
         /// The header.\n    pub fn header(&self) -> &Header {\n        match self {\n",
    );
    for m in messages {
        let _ = writeln!(s, "            AnyMessage::{}(m) => &m.header,", m.name);
    }
    s.push_str(
        "        }\n    }\n\n    \
         /// The message type.\n    pub fn message_type(&self) -> MessageType {\n        \
         self.header().message_type\n    }\n\n    \
         /// The octets [`AnyMessage::encode`] writes.\n    pub fn encoded_len(&self) -> usize {\n        \
         match self {\n",
    );
    for m in messages {
        let _ = writeln!(
            s,
            "            AnyMessage::{}(m) => m.encoded_len(),",
            m.name
        );
    }
    s.push_str(
        "        }\n    }\n\n    \
         /// Write the message into `out`; returns its length.\n    \
         pub fn encode<S: Sink + ?Sized>(&self, out: &mut S) -> Result<usize, EncodeError> {\n        \
         match self {\n",
    );
    for m in messages {
        let _ = writeln!(s, "            AnyMessage::{}(m) => m.encode(out),", m.name);
    }
    s.push_str(
        "        }\n    }\n\n    \
         /// The message's octets.\n    pub fn to_vec(&self) -> Result<Vec<u8>, EncodeError> {\n        \
         let mut out = Vec::with_capacity(self.encoded_len());\n        \
         self.encode(&mut out)?;\n        Ok(out)\n    }\n}\n",
    );
}

pub(super) fn mandatory_table(s: &mut String, messages: &[Message]) {
    s.push_str(
        "\n/// The mandatory IEs of `message_type`, in its table's order (`presence::mandatory_ies`).\n\
         #[inline]\n\
         pub(crate) const fn mandatory_ies(message_type: MessageType) -> &'static [IeType] {\n    \
         match message_type {\n",
    );
    for m in messages {
        let ies: Vec<String> = m.mandatory().map(|f| format!("IeType::{}", f.ie)).collect();
        if ies.is_empty() {
            continue;
        }
        let _ = writeln!(
            s,
            "        MessageType::{} => &[{}],",
            m.constant,
            ies.join(", ")
        );
    }
    s.push_str("        _ => &[],\n    }\n}\n");
}
