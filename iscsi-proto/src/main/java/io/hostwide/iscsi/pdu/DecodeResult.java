package io.hostwide.iscsi.pdu;

/** What the stateless decoder produces: a well-formed {@link Pdu}, or a {@link DecodeError} value. */
public sealed interface DecodeResult permits Pdu, DecodeError {}
