package io.hostwide.tcm.archfixture.spi;

/** The fixture's storage SPI; depends on nothing. */
public interface Storage {
}
