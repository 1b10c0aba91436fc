package io.hostwide.tcm.core;



import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The commands one task management request aborted, each with the abort word of the submission it hit, and the
 * action to run once every one of them has been seen by its fabric. A command counts as gone when its word shows
 * {@link CoreCommand#ABORT_DELIVERED} or a later submission (it was released and reused).
 */
final class AbortOperation {
    private CoreCommand[] commands = new CoreCommand[8];
    private long[] words = new long[8];
    private int count;
    private final Runnable onDone;
    private final List<AbortOperation> registry;
    private final AtomicBoolean finished = new AtomicBoolean();
    private volatile boolean armed; // set after the scan: notifications before it are ignored, then re-checked

    /** @param registry the task manager's list of waiting operations: left before {@code onDone} runs */
    AbortOperation(Runnable onDone, List<AbortOperation> registry) {
        this.onDone = onDone;
        this.registry = registry;
    }

    void add(CoreCommand c, long word) {
        if (count == commands.length) {
            commands = Arrays.copyOf(commands, count * 2);
            words = Arrays.copyOf(words, count * 2);
        }
        commands[count] = c;
        words[count++] = word;
    }

    int count() { return count; }

    void arm() { armed = true; }

    /** @return true when this call finished the operation (ran {@code onDone}) */
    boolean check() {
        if (!armed) {
            return false;
        }
        for (int i = 0; i < count; i++) {
            long w = commands[i].abortWord();
            if (CoreCommand.sequence(w) == CoreCommand.sequence(words[i])
                    && (w & CoreCommand.ABORT_DELIVERED) == 0) {
                return false;
            }
        }
        if (!finished.compareAndSet(false, true)) {
            return false;
        }
        registry.remove(this);
        onDone.run();
        return true;
    }
}
