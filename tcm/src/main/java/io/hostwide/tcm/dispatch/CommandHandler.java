package io.hostwide.tcm.dispatch;



/**
 * Executes one command after every gate passed. Returns {@link CommandDescriptor#DONE} when the outcome is set
 * (GOOD with optional Data-In, or a failure through {@link Command#fail}); the core then completes it.
 * Handlers never throw for anything a command carries; an unexpected exception becomes INTERNAL TARGET FAILURE.
 * Handlers of medium-access commands run on the device's I/O queue when the backstore blocks.
 */
@FunctionalInterface
public interface CommandHandler {
    int execute(Command cmd);
}
