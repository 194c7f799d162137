package all

import _ "github.com/rdx-project/rdx/dissect/icmp"
