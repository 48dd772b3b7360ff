//! Unit tests of license detection: one test per recognised license text, names,
//! classifiers, expressions and the order of evidence.

use super::*;

const MIT: &str = "MIT License

Copyright (c) 2024 Jane Doe

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the \"Software\"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY.
";

const APACHE: &str = "
                                 Apache License
                           Version 2.0, January 2004
                        http://www.apache.org/licenses/

   TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION

   1. Definitions.

      \"License\" shall mean the terms and conditions for use, reproduction,
      and distribution as defined by Sections 1 through 9 of this document.
";

const BSD_HEAD: &str = "Copyright (c) 2020, The Authors
All rights reserved.

Redistribution and use in source and binary forms, with or without
modification, are permitted provided that the following conditions are met:

1. Redistributions of source code must retain the above copyright notice, this
   list of conditions and the following disclaimer.

2. Redistributions in binary form must reproduce the above copyright notice,
   this list of conditions and the following disclaimer in the documentation
   and/or other materials provided with the distribution.
";

const BSD3_CLAUSE: &str = "
3. Neither the name of the copyright holder nor the names of its
   contributors may be used to endorse or promote products derived from
   this software without specific prior written permission.
";

const BSD_TAIL: &str = "
THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS \"AS IS\"
AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE
DISCLAIMED.
";

const ISC: &str = "ISC License

Copyright (c) 2024, Jane Doe

Permission to use, copy, modify, and/or distribute this software for any
purpose with or without fee is hereby granted, provided that the above
copyright notice and this permission notice appear in all copies.

THE SOFTWARE IS PROVIDED \"AS IS\" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
";

const ZERO_BSD: &str = "Copyright (C) 2024 by Jane Doe

Permission to use, copy, modify, and/or distribute this software for any
purpose with or without fee is hereby granted.

THE SOFTWARE IS PROVIDED \"AS IS\" AND THE AUTHOR DISCLAIMS ALL WARRANTIES
WITH REGARD TO THIS SOFTWARE.
";

const MPL: &str = "Mozilla Public License Version 2.0
==================================

1. Definitions
--------------

1.1. \"Contributor\"
    means each individual or legal entity that creates, contributes to
    the creation of, or owns Covered Software.
";

const GPL3: &str = "                    GNU GENERAL PUBLIC LICENSE
                       Version 3, 29 June 2007

 Copyright (C) 2007 Free Software Foundation, Inc. <https://fsf.org/>
 Everyone is permitted to copy and distribute verbatim copies
 of this license document, but changing it is not allowed.

                            Preamble

  The GNU General Public License is a free, copyleft license for
software and other kinds of works.
...
  13. Use with the GNU Affero General Public License.
...
use the GNU Lesser General Public License instead of this License.
";

const GPL2: &str = "                    GNU GENERAL PUBLIC LICENSE
                       Version 2, June 1991

 Copyright (C) 1989, 1991 Free Software Foundation, Inc.,
 51 Franklin Street, Fifth Floor, Boston, MA 02110-1301 USA
";

const LGPL21: &str = "                  GNU LESSER GENERAL PUBLIC LICENSE
                       Version 2.1, February 1999

 Copyright (C) 1991, 1999 Free Software Foundation, Inc.
[This is the first released version of the Lesser GPL.  It also counts
 as the successor of the GNU Library Public License, version 2, hence
 the version number 2.1.]
";

const LGPL3: &str = "                   GNU LESSER GENERAL PUBLIC LICENSE
                       Version 3, 29 June 2007

 Copyright (C) 2007 Free Software Foundation, Inc. <https://fsf.org/>

  This version of the GNU Lesser General Public License incorporates
the terms and conditions of version 3 of the GNU General Public
License, supplemented by the additional permissions listed below.
";

const AGPL3: &str = "                    GNU AFFERO GENERAL PUBLIC LICENSE
                       Version 3, 19 November 2007

 Copyright (C) 2007 Free Software Foundation, Inc. <https://fsf.org/>

  The GNU Affero General Public License is a free, copyleft license for
software and other kinds of works, specifically designed to ensure
cooperation with the community in the case of network server software.
";

const UNLICENSE: &str = "This is free and unencumbered software released into the public domain.

Anyone is free to copy, modify, publish, use, compile, sell, or
distribute this software, either in source code form or as a compiled
binary, for any purpose, commercial or non-commercial, and by any
means.

For more information, please refer to <https://unlicense.org>
";

const PSF: &str = "PYTHON SOFTWARE FOUNDATION LICENSE VERSION 2
--------------------------------------------

1. This LICENSE AGREEMENT is between the Python Software Foundation
(\"PSF\"), and the Individual or Organization (\"Licensee\") accessing and
otherwise using this software (\"Python\") in source or binary form and
its associated documentation.
";

#[test]
fn mit_text() {
    assert_eq!(from_text(MIT), Some("MIT"));
}

#[test]
fn apache_text() {
    assert_eq!(from_text(APACHE), Some("Apache-2.0"));
}

#[test]
fn bsd_2_vs_3_clause_text() {
    assert_eq!(
        from_text(&format!("{BSD_HEAD}{BSD_TAIL}")),
        Some("BSD-2-Clause")
    );
    assert_eq!(
        from_text(&format!("{BSD_HEAD}{BSD3_CLAUSE}{BSD_TAIL}")),
        Some("BSD-3-Clause")
    );
}

#[test]
fn isc_text() {
    assert_eq!(from_text(ISC), Some("ISC"));
}

#[test]
fn zero_bsd_text() {
    assert_eq!(from_text(ZERO_BSD), Some("0BSD"));
}

#[test]
fn mpl_text() {
    assert_eq!(from_text(MPL), Some("MPL-2.0"));
}

#[test]
fn gpl_texts() {
    assert_eq!(from_text(GPL3), Some("GPL-3.0-only"));
    assert_eq!(from_text(GPL2), Some("GPL-2.0-only"));
    let notice = "Copyright (C) 2024 Jane\n\nThis program is free software: you can redistribute it and/or modify\n\
        it under the terms of the GNU General Public License as published by\nthe Free Software Foundation, \
        either version 3 of the License, or\n(at your option) any later version.\n";
    assert_eq!(from_text(notice), Some("GPL-3.0-or-later"));
}

#[test]
fn lgpl_texts() {
    assert_eq!(from_text(LGPL21), Some("LGPL-2.1-only"));
    assert_eq!(from_text(LGPL3), Some("LGPL-3.0-only"));
}

#[test]
fn agpl_text() {
    assert_eq!(from_text(AGPL3), Some("AGPL-3.0-only"));
}

#[test]
fn unlicense_text() {
    assert_eq!(from_text(UNLICENSE), Some("Unlicense"));
}

#[test]
fn psf_text() {
    assert_eq!(from_text(PSF), Some("PSF-2.0"));
}

#[test]
fn unknown_and_mixed_texts() {
    assert_eq!(from_text("All rights reserved. Do not copy."), None);
    assert_eq!(
        from_text(&format!("{MIT}\n\nvendored/foo:\n{APACHE}")),
        None
    );
    assert_eq!(from_text("ünïcödé ".repeat(400).as_str()), None);
}

#[test]
fn names() {
    let cases = [
        ("MIT", Some("MIT")),
        ("mit", Some("MIT")),
        ("MIT License", Some("MIT")),
        ("Apache 2.0", Some("Apache-2.0")),
        ("Apache Software License", Some("Apache-2.0")),
        ("Apache License, Version 2.0", Some("Apache-2.0")),
        ("apache-2.0", Some("Apache-2.0")),
        ("BSD", None),
        ("BSD License", None),
        ("BSD 3-Clause", Some("BSD-3-Clause")),
        ("New BSD License", Some("BSD-3-Clause")),
        ("Simplified BSD", Some("BSD-2-Clause")),
        ("GPLv3", Some("GPL-3.0-only")),
        ("GPLv3+", Some("GPL-3.0-or-later")),
        ("GPL-3.0", Some("GPL-3.0-only")),
        ("GNU GPL v2 or later", Some("GPL-2.0-or-later")),
        ("GPL", None),
        ("LGPLv2.1", Some("LGPL-2.1-only")),
        ("AGPL-3.0-or-later", Some("AGPL-3.0-or-later")),
        ("MPL 2.0", Some("MPL-2.0")),
        ("ISC", Some("ISC")),
        ("PSF", Some("PSF-2.0")),
        ("The Unlicense", Some("Unlicense")),
        ("0BSD", Some("0BSD")),
        ("MIT OR Apache-2.0", Some("MIT OR Apache-2.0")),
        ("MIT or Apache", None),
        ("Dual License", None),
        ("UNKNOWN", None),
        ("", None),
    ];
    for (name, want) in cases {
        assert_eq!(from_name(name).as_deref(), want, "{name}");
    }
    assert_eq!(
        from_name(MIT).as_deref(),
        Some("MIT"),
        "a whole text in the field"
    );
}

#[test]
fn classifiers() {
    let c = |v: &[&str]| from_classifiers(&v.iter().map(|s| (*s).to_string()).collect::<Vec<_>>());
    assert_eq!(
        c(&["License :: OSI Approved :: MIT License"]).as_deref(),
        Some("MIT")
    );
    assert_eq!(
        c(&["License :: OSI Approved :: Apache Software License"]).as_deref(),
        Some("Apache-2.0")
    );
    assert_eq!(
        c(&["License :: OSI Approved :: BSD License"]),
        None,
        "BSD classifier is ambiguous"
    );
    assert_eq!(
        c(&["License :: OSI Approved :: GNU General Public License v3 or later (GPLv3+)"])
            .as_deref(),
        Some("GPL-3.0-or-later")
    );
    assert_eq!(
        c(&["License :: OSI Approved :: GNU General Public License (GPL)"]),
        None
    );
    assert_eq!(
        c(&["License :: OSI Approved", "Programming Language :: Python"]),
        None
    );
    assert_eq!(
        c(&[
            "License :: OSI Approved :: MIT License",
            "License :: OSI Approved :: Apache Software License"
        ]),
        None
    );
    assert_eq!(
        c(&["License :: OSI Approved :: ISC License (ISCL)"]).as_deref(),
        Some("ISC")
    );
    assert_eq!(
        c(&["License :: OSI Approved :: Python Software Foundation License"]).as_deref(),
        Some("PSF-2.0")
    );
    assert_eq!(
        c(&["License :: OSI Approved :: MIT No Attribution License (MIT-0)"]).as_deref(),
        Some("MIT-0")
    );
}

#[test]
fn expressions() {
    assert_eq!(from_expression("mit").as_deref(), Some("MIT"));
    assert_eq!(
        from_expression("(MIT or apache-2.0) AND BSD-3-Clause").as_deref(),
        Some("(MIT OR Apache-2.0) AND BSD-3-Clause")
    );
    assert_eq!(
        from_expression("Apache-2.0 WITH LLVM-exception").as_deref(),
        Some("Apache-2.0 WITH LLVM-exception")
    );
    assert_eq!(
        from_expression("LicenseRef-Proprietary").as_deref(),
        Some("LicenseRef-Proprietary")
    );
    for bad in [
        "",
        "MIT OR",
        "(MIT",
        "MIT Apache-2.0",
        "MIT License, see file",
        "AND MIT",
    ] {
        assert_eq!(from_expression(bad), None, "{bad}");
    }
}

#[test]
fn evidence_order_and_sources() {
    let files = vec![("LICENSE".to_string(), MIT.to_string())];
    let mut e = Evidence {
        files: files.clone(),
        ..Evidence::default()
    };
    assert_eq!(
        detect(&e),
        Some(License {
            id: "MIT".into(),
            source: LicenseSource::LicenseFile
        })
    );
    e.classifiers
        .push("License :: OSI Approved :: Apache Software License".into());
    assert_eq!(
        detect(&e),
        Some(License {
            id: "Apache-2.0".into(),
            source: LicenseSource::Classifier
        })
    );
    e.texts.push("BSD".into());
    assert_eq!(
        detect(&e).unwrap().source,
        LicenseSource::Classifier,
        "an ambiguous field falls through"
    );
    e.texts.push("ISC".into());
    assert_eq!(
        detect(&e),
        Some(License {
            id: "ISC".into(),
            source: LicenseSource::Metadata
        })
    );
    e.expressions.push("MPL-2.0".into());
    assert_eq!(
        detect(&e),
        Some(License {
            id: "MPL-2.0".into(),
            source: LicenseSource::Metadata
        })
    );
    assert_eq!(detect(&Evidence::default()), None);
}

#[test]
fn license_files_combined() {
    let e = |texts: &[&str]| Evidence {
        files: texts
            .iter()
            .enumerate()
            .map(|(i, t)| (format!("LICENSE{i}"), (*t).to_string()))
            .collect(),
        ..Evidence::default()
    };
    assert_eq!(detect(&e(&[GPL3, LGPL3])).unwrap().id, "LGPL-3.0-only");
    assert_eq!(detect(&e(&[MIT, APACHE])), None);
    assert_eq!(
        detect(&e(&[MIT, "see the documentation"])).unwrap().id,
        "MIT"
    );
}
