"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import styles from "./site-nav.module.css";

const LINKS = [
  { href: "/", label: "Locks" },
  { href: "/sessions", label: "Holder sessions" },
  { href: "/contention", label: "Contention" },
  { href: "/events", label: "Events" },
  { href: "/latency", label: "Latency" },
  { href: "/playground", label: "Playground" },
  { href: "/audit", label: "Audit" },
  { href: "/tokens", label: "Tokens" },
] as const;

function isCurrent(pathname: string, href: string): boolean {
  // The lock detail pages belong to the overview.
  if (href === "/") return pathname === "/" || pathname.startsWith("/locks/");
  return pathname === href || pathname.startsWith(`${href}/`);
}

export function SiteNav() {
  const pathname = usePathname();
  return (
    <nav aria-label="Main" className={styles.nav}>
      {LINKS.map((link) => (
        <Link
          key={link.href}
          href={link.href}
          className={styles.link}
          aria-current={isCurrent(pathname, link.href) ? "page" : undefined}
        >
          {link.label}
        </Link>
      ))}
    </nav>
  );
}
