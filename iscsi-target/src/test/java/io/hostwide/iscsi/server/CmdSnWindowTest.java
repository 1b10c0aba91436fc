package io.hostwide.iscsi.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CmdSnWindowTest {
    @Test
    void windowIsQueueDepthLessOutstanding() {
        CmdSnWindow w = new CmdSnWindow(10, 4);
        assertThat(w.expCmdSn()).isEqualTo(10);
        assertThat(w.maxCmdSn()).isEqualTo(13);
        for (int sn = 10; sn < 14; sn++) {
            assertThat(w.classify(sn)).isEqualTo(CmdSnWindow.IN_ORDER);
            w.deliver();
        }
        assertThat(w.maxCmdSn()).isEqualTo(13); // closed: MaxCmdSN = ExpCmdSN - 1
        assertThat(w.classify(14)).isEqualTo(CmdSnWindow.OUTSIDE);
        w.complete();
        assertThat(w.maxCmdSn()).isEqualTo(14);
        assertThat(w.classify(14)).isEqualTo(CmdSnWindow.IN_ORDER);
    }

    @Test
    void aheadAndOutsideUseSerialArithmetic() {
        CmdSnWindow w = new CmdSnWindow(-2, 8); // wraps through 0xffffffff
        assertThat(w.classify(-1)).isEqualTo(CmdSnWindow.AHEAD);
        assertThat(w.classify(5)).isEqualTo(CmdSnWindow.AHEAD);
        assertThat(w.classify(6)).isEqualTo(CmdSnWindow.OUTSIDE); // beyond MaxCmdSN = 5
        assertThat(w.classify(-3)).isEqualTo(CmdSnWindow.OUTSIDE); // already seen
        assertThat(w.classify(Integer.MIN_VALUE)).isEqualTo(CmdSnWindow.OUTSIDE);
    }
}
