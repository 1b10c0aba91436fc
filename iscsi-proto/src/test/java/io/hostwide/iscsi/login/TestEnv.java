package io.hostwide.iscsi.login;

import io.hostwide.iscsi.pdu.LoginRequest;
import io.hostwide.iscsi.spec.LoginStatus;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** A table-driven login environment and request/response helpers for the login tests. */
final class TestEnv implements LoginEnvironment {
    static final String INITIATOR = "iqn.2026-12.io.hostwide:initiator";
    static final String TARGET = "iqn.2026-12.io.hostwide:target0";

    final Map<String, LoginTarget> targets = new HashMap<>();
    ChapPolicy discoveryChap = ChapPolicy.NONE;
    NegotiationPolicy policy = NegotiationPolicy.defaults();
    final List<SessionRequest> admitted = new ArrayList<>();
    int nextTsih = 1;

    TestEnv() {
        targets.put(TARGET, new LoginTarget(TARGET, "disk0", 1, ChapPolicy.NONE, null));
    }

    TestEnv withTarget(LoginTarget t) {
        targets.put(t.name(), t);
        return this;
    }

    @Override
    public LoginTarget target(String name) {
        return targets.get(name);
    }

    @Override
    public ChapPolicy discoveryChap() {
        return discoveryChap;
    }

    @Override
    public NegotiationPolicy policy() {
        return policy;
    }

    @Override
    public Admission admit(SessionRequest request) {
        if (request.tsih() != 0 && request.tsih() >= nextTsih) {
            return Admission.refused(LoginStatus.SESSION_DOES_NOT_EXIST);
        }
        admitted.add(request);
        int tsih = request.tsih() != 0 ? request.tsih() : nextTsih++;
        return new Admission(LoginStatus.SUCCESS, tsih, request.cmdSn(), request.cmdSn() + 31);
    }

    LoginStateMachine machine() {
        return new LoginStateMachine(this, 100, new Random(1));
    }

    /** A Login Request with the given flags and text pairs ("key=value"). */
    static LoginRequest req(boolean t, boolean c, int csg, int nsg, String... pairs) {
        StringBuilder sb = new StringBuilder();
        for (String p : pairs) {
            sb.append(p).append('\0');
        }
        return new LoginRequest(t, c, csg, nsg, 0, 0, 0x400001370000L, 0, 7, 0, 1, 0,
                ByteBuffer.wrap(sb.toString().getBytes(StandardCharsets.UTF_8)));
    }

    static Map<String, String> keys(LoginStep step) {
        Map<String, String> m = new LinkedHashMap<>();
        for (KeyValue kv : TextCodec.parse(step.response().data()).pairs()) {
            m.put(kv.key(), kv.value());
        }
        return m;
    }
}
