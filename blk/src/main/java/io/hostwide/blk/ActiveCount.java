package io.hostwide.blk;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An {@code nr_active} counter alone on its 128 bytes (two cache lines: a line and its adjacent-line prefetch
 * partner). Submitters add to it on every driver tag and completers subtract on every free, so it must not
 * share a line with the read-mostly fields every submission reads (the hctx state and flags, the queue's
 * active flag and quiesce depth), or each completion would invalidate those for every submitter.
 */
final class ActiveCount extends ActiveCountPadAfter {
    private static final VarHandle VALUE;

    static {
        try {
            VALUE = MethodHandles.lookup().findVarHandle(ActiveCountValue.class, "value", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Acquire: pairs with the release side of {@link #add}'s volatile RMW. */
    int get() {
        return (int) VALUE.getAcquire(this);
    }

    /** A volatile RMW (atomic_add): exact under concurrent adds from submitters and completers. */
    void add(int delta) {
        VALUE.getAndAdd(this, delta);
    }
}

/** 128 bytes ahead of the value. */
abstract class ActiveCountPadBefore {
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/** The value; see {@link ActiveCount}. */
abstract class ActiveCountValue extends ActiveCountPadBefore {
    @SuppressWarnings("unused") volatile int value;
}

/** 128 bytes behind the value. */
abstract class ActiveCountPadAfter extends ActiveCountValue {
    long q00, q01, q02, q03, q04, q05, q06, q07, q08, q09, q10, q11, q12, q13, q14, q15;
}
