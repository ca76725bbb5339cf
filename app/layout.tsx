import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import { Providers } from "./providers";
import { ReadOnlyBanner } from "./_shell/read-only-banner";
import { BreakGlassBanner } from "./_shell/break-glass-banner";
import { SessionMenu } from "./_shell/session-menu";
import { SiteNav } from "./_shell/site-nav";
import "./globals.css";
import styles from "./layout.module.css";

export const metadata: Metadata = {
  title: { default: "Redlock Console", template: "%s · Redlock Console" },
  description: "Live Redlock locks across independent Redis masters.",
};

export const viewport: Viewport = {
  width: "device-width",
  initialScale: 1,
  colorScheme: "light dark",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <Providers>
          <a className={styles.skip} href="#main">
            Skip to content
          </a>
          <header className={styles.header}>
            <span className={styles.brand}>Redlock Console</span>
            <SiteNav />
            <SessionMenu />
          </header>
          <ReadOnlyBanner />
          <BreakGlassBanner />
          <main id="main" className="page">
            {children}
          </main>
        </Providers>
      </body>
    </html>
  );
}
