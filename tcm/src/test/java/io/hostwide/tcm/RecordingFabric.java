package io.hostwide.tcm;

import io.hostwide.scsi.spec.LunAddress;
import io.hostwide.scsi.spec.TaskAttribute;
import io.hostwide.tcm.core.Session;
import io.hostwide.tcm.spi.Fabric;
import io.hostwide.tcm.spi.TargetCommand;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fabric for task management and ordering tests: records every completion (tag, status, aborted, response
 * suppressed) in completion order, counts completions per tag (exactly-once checks) and lets tests wait for one.
 */
final class RecordingFabric implements Fabric {
    record Done(long tag, int status, boolean aborted, boolean suppressed, String sessionName) {}

    final List<Done> completions = new CopyOnWriteArrayList<>();
    final Map<Long, AtomicInteger> perTag = new ConcurrentHashMap<>();
    private final AtomicInteger nextTag = new AtomicInteger(1);

    @Override
    public int protocolIdentifier() { return 5; }

    @Override
    public void complete(TargetCommand cmd) {
        Done d = new Done(cmd.tag(), cmd.status(), cmd.aborted(), cmd.responseSuppressed(),
                (String) cmd.fabricPrivate());
        perTag.computeIfAbsent(cmd.tag(), t -> new AtomicInteger()).incrementAndGet();
        cmd.release();
        completions.add(d);
        synchronized (this) {
            notifyAll();
        }
    }

    long submit(Session s, byte[] cdb, TaskAttribute attr, int dir, int length) {
        long tag = nextTag.getAndIncrement();
        TargetCommand c = s.newCommand().setup(LunAddress.encode(0), cdb, 0, cdb.length, attr, tag, length, dir);
        c.fabricPrivate(s.initiatorName()); // the session's name comes back with the completion
        if ((dir & TargetCommand.DIR_WRITE) != 0) {
            c.dataOutBuffer(length).put(new byte[length]).flip();
        }
        s.submit(c);
        return tag;
    }

    /** Submits a Data-Out command carrying {@code data}. */
    long submit(Session s, byte[] cdb, TaskAttribute attr, byte[] data) {
        long tag = nextTag.getAndIncrement();
        TargetCommand c = s.newCommand().setup(LunAddress.encode(0), cdb, 0, cdb.length, attr, tag, data.length,
                TargetCommand.DIR_WRITE);
        c.fabricPrivate(s.initiatorName());
        c.dataOutBuffer(data.length).put(data).flip();
        s.submit(c);
        return tag;
    }

    long read(Session s, long lba, TaskAttribute attr) {
        return submit(s, Harness.read10(lba, 1), attr, TargetCommand.DIR_READ, 512);
    }

    long write(Session s, long lba, TaskAttribute attr) {
        return submit(s, Harness.write10(lba, 1), attr, TargetCommand.DIR_WRITE, 512);
    }

    /** Waits until {@code tag} completed and returns its record. */
    Done await(long tag) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        synchronized (this) {
            while (true) {
                for (Done d : completions) {
                    if (d.tag() == tag) {
                        return d;
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("tag " + tag + " never completed");
                }
                try {
                    wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            }
        }
    }

    boolean completed(long tag) {
        for (Done d : completions) {
            if (d.tag() == tag) {
                return true;
            }
        }
        return false;
    }

    List<Long> completionOrder() { return completions.stream().map(Done::tag).toList(); }
}
