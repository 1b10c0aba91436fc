package io.hostwide.tcm.spi;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Deferred flushes: once per batch and per flush, only on the batch's own thread, never after close. */
class CompletionBatchTest {

    @Test
    void withoutBatchNothingIsDeferred() {
        assertThat(CompletionBatch.defer(() -> { })).isFalse();
    }

    @Test
    void eachFlushRunsOnceAtClose() {
        List<String> ran = new ArrayList<>();
        Runnable a = () -> ran.add("a");
        Runnable b = () -> ran.add("b");
        try (CompletionBatch batch = CompletionBatch.open()) {
            assertThat(CompletionBatch.defer(a)).isTrue();
            assertThat(CompletionBatch.defer(b)).isTrue();
            assertThat(CompletionBatch.defer(a)).isTrue();
            assertThat(ran).isEmpty();
        }
        assertThat(ran).containsExactly("a", "b");
        assertThat(CompletionBatch.defer(a)).isFalse(); // closed: the caller flushes at once again
    }

    @Test
    void nestedScopeLeavesTheFlushToTheOuterOne() {
        List<String> ran = new ArrayList<>();
        try (CompletionBatch outer = CompletionBatch.open()) {
            try (CompletionBatch inner = CompletionBatch.open()) {
                CompletionBatch.defer(() -> ran.add("x"));
            }
            assertThat(ran).isEmpty();
        }
        assertThat(ran).containsExactly("x");
    }

    @Test
    void anotherThreadFlushesAtOnce() throws InterruptedException {
        AtomicBoolean deferred = new AtomicBoolean(true);
        try (CompletionBatch batch = CompletionBatch.open()) {
            Thread t = new Thread(() -> deferred.set(CompletionBatch.defer(() -> { })));
            t.start();
            t.join();
        }
        assertThat(deferred).isFalse();
    }

    @Test
    void aFullBatchHandsTheFlushBack() {
        try (CompletionBatch batch = CompletionBatch.open()) {
            List<Integer> ran = new ArrayList<>();
            int accepted = 0;
            for (int i = 0; i < 100; i++) {
                int k = i;
                if (CompletionBatch.defer(() -> ran.add(k))) { // a capturing lambda: a distinct flush each time
                    accepted++;
                }
            }
            assertThat(accepted).isEqualTo(64);
        }
    }

    @Test
    void aThrowingFlushDoesNotSkipTheOthers() {
        List<String> ran = new ArrayList<>();
        CompletionBatch batch = CompletionBatch.open();
        CompletionBatch.defer(() -> { throw new IllegalStateException("first"); });
        CompletionBatch.defer(() -> ran.add("second"));
        assertThatThrownBy(batch::close).isInstanceOf(IllegalStateException.class).hasMessage("first");
        assertThat(ran).containsExactly("second");
        assertThat(CompletionBatch.defer(() -> { })).isFalse();
    }
}
