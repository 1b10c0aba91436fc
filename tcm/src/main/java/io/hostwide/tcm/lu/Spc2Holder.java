package io.hostwide.tcm.lu;

/**
 * The I_T nexus holding an SPC-2 RESERVE, by name (SAM-5 §4.6.2: an I_T nexus is its initiator port and target
 * port) rather than by session object, so that a gateway sharing the reservation state can see a holder that
 * logged in through another gateway.
 */
public record Spc2Holder(String initiatorPortName, String targetPortName) {

    public Spc2Holder {
        if (initiatorPortName == null || targetPortName == null) {
            throw new IllegalArgumentException("SPC-2 holder needs both port names");
        }
    }

    public static Spc2Holder of(ItNexus n) { return new Spc2Holder(n.initiatorPortName(), n.targetPortName()); }

    public boolean matches(ItNexus n) {
        return initiatorPortName.equals(n.initiatorPortName()) && targetPortName.equals(n.targetPortName());
    }
}
