/** RFC 7143 facts: opcodes, the BHS layout, flags and codes. No behaviour. */
package io.hostwide.iscsi.spec;
