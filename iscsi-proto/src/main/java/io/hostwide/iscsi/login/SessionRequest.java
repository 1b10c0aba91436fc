package io.hostwide.iscsi.login;

/**
 * A login about to enter full feature phase, for the session registry to admit: a new session (tsih 0), a connection
 * joining one (tsih of that session) or a reinstatement (tsih 0 and an ISID the registry already holds, RFC 7143
 * §6.3.5).
 *
 * @param targetName null for a discovery session
 * @param cmdSn the CmdSN of the final Login Request: the session's first ExpCmdSN on a leading login
 */
public record SessionRequest(
        String initiatorName, String initiatorAlias, String targetName, boolean discovery, long isid, int tsih,
        int cid, int cmdSn, NegotiatedParameters parameters) {
}
