package io.hostwide.tcm.core;

/**
 * Core-wide settings.
 *
 * @param powerOnUnitAttention a new I_T nexus first sees POWER ON, RESET, OR BUS DEVICE RESET OCCURRED (29h/00h)
 *                             on every LUN (SAM-5 §6.3.1); off makes test fabrics and benchmarks start quietly
 * @param commandPoolSize      commands each session keeps for reuse
 */
public record CoreConfig(boolean powerOnUnitAttention, int commandPoolSize) {
    public static CoreConfig defaults() { return new CoreConfig(true, 256); }

    public CoreConfig withPowerOnUnitAttention(boolean on) { return new CoreConfig(on, commandPoolSize); }

    public CoreConfig withCommandPoolSize(int n) { return new CoreConfig(powerOnUnitAttention, n); }
}
