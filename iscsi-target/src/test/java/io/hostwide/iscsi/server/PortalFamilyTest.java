package io.hostwide.iscsi.server;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An IPv4 portal binds an IPv4 socket: a plain ServerSocketChannel.open() turned 0.0.0.0 into the dual-stack IPv6
 * wildcard, logged as 0:0:0:0:0:0:0:0 (issue 12). Checked without binding the wildcard: tests stay on loopback.
 */
class PortalFamilyTest {
    @Test
    void ipv4AddressesGetAnIpv4Socket() throws Exception {
        assertThat(IscsiTargetServer.familyOf(new InetSocketAddress("0.0.0.0", 3260))).isEqualTo(StandardProtocolFamily.INET);
        assertThat(IscsiTargetServer.familyOf(new InetSocketAddress("127.0.0.1", 3260))).isEqualTo(StandardProtocolFamily.INET);
        assertThat(IscsiTargetServer.familyOf(new InetSocketAddress("::", 3260))).isEqualTo(StandardProtocolFamily.INET6);
        assertThat(IscsiTargetServer.familyOf(new InetSocketAddress("::1", 3260))).isEqualTo(StandardProtocolFamily.INET6);
    }
}
