/**
 * The load generator the commands share: a {@link io.hostwide.cli.load.BenchTarget} (any block device through
 * {@link io.hostwide.cli.load.BlockDeviceTarget}), fio-like jobs and their runner, and the result. {@code bench}
 * and {@code lab} drive it; {@code stat} and {@code ls} open their devices through it. It sits below the command
 * packages and depends on none of them (LayeringTest).
 */
package io.hostwide.cli.load;
