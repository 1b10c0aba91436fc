package io.hostwide.tcm.lu;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * READ is optimistic against the range lock (SBC-4 §5.3, §4.29.2: a COMPARE AND WRITE or WRITE ATOMIC is never seen
 * half done): the stamps fail while an atomic command holds a stripe, and validation fails when one held it in
 * between; plain writers (shared) do not disturb a read. The torn READ this guards was seen once in
 * AtomicWritesTest.compareAndWriteIsAtomicUnderContendingWriters under load.
 */
class RangeLockOptimisticReadTest {
    private final RangeLock lock = new RangeLock();
    private final long[] reader = RangeLock.newStamps();
    private final long[] writer = RangeLock.newStamps();

    @Test
    void aReadWhileAnAtomicCommandHoldsTheStripeMustLock() {
        long m = RangeLock.mask(0, 1);
        lock.lockExclusive(m, writer);
        assertThat(lock.tryOptimisticRead(m, reader)).isFalse();
        lock.unlockExclusive(m, writer);
        assertThat(lock.tryOptimisticRead(m, reader)).isTrue();
        assertThat(lock.validate(m, reader)).isTrue();
    }

    @Test
    void anAtomicCommandBetweenStartAndEndOfTheReadInvalidatesIt() {
        long read = RangeLock.mask(100, 200); // three stripes
        assertThat(lock.tryOptimisticRead(read, reader)).isTrue();
        long caw = RangeLock.mask(260, 1);    // the last of them
        lock.lockExclusive(caw, writer);
        lock.unlockExclusive(caw, writer);
        assertThat(lock.validate(read, reader)).isFalse();
    }

    @Test
    void plainWritersAndOtherStripesLeaveTheReadValid() {
        long read = RangeLock.mask(0, 8);
        assertThat(lock.tryOptimisticRead(read, reader)).isTrue();
        lock.lockShared(read, writer);         // a plain WRITE of the same blocks
        lock.unlockShared(read, writer);
        long elsewhere = RangeLock.mask(1000, 1);
        lock.lockExclusive(elsewhere, writer); // an atomic command on another stripe
        lock.unlockExclusive(elsewhere, writer);
        assertThat(lock.validate(read, reader)).isTrue();
    }
}
