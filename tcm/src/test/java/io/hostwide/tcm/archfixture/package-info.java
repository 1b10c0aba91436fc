/**
 * Deliberately broken architecture for {@code ArchitectureTest}: a package tree laid out like io.hostwide.tcm whose
 * classes break each rule of {@code TcmArchitecture} once, so that the rules are shown to fail. lu reaches up into
 * core and core uses lu (a reach-up and a cycle), tmf uses the root package that uses tmf (a cycle through the root
 * package), and sbc uses spc (one command set using another). Test code only; never imported with the module.
 */
package io.hostwide.tcm.archfixture;
