package io.hostwide.management;

/** A configuration change the running target refuses because only a restart can make it; nothing was applied. */
public final class RestartRequiredException extends IllegalArgumentException {
    RestartRequiredException(String message) {
        super(message);
    }
}
