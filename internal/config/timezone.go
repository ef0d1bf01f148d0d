package config

import (
	"sync"
	"time"
)

// defaultZone is where session times are shown unless ui.timezone says
// otherwise: the product's users are in China (UTC+08:00).
const defaultZone = "Asia/Shanghai"

// chinaStandardTime stands in for Asia/Shanghai on systems without a zoneinfo
// database (minimal containers, some Windows installs). China has used UTC+8
// without daylight saving since 1991, so the fixed zone is exact for any time
// coder will display; embedding time/tzdata (~450 KB) for one zone is not worth it.
var chinaStandardTime = time.FixedZone("CST", 8*60*60)

// Location returns the zone to display times in. It never fails: a zone that
// cannot be loaded falls back to UTC+8, the default. Validate reports such a
// zone, so outside of tests the fallback only covers a missing Asia/Shanghai.
func Location(c UI) *time.Location {
	loc, err := loadLocation(c.Timezone)
	if err != nil {
		return chinaStandardTime
	}
	return loc
}

// zones keeps each zone loadLocation loaded (name → zone): validation and
// the front end ask for the same one, and each load reads and parses a
// zoneinfo file.
var zones sync.Map

type zone struct {
	loc *time.Location
	err error
}

// loadLocation is time.LoadLocation, except that the default zone always loads.
// "" is UTC and "Local" the system zone, as with time.LoadLocation.
func loadLocation(name string) (*time.Location, error) {
	if z, ok := zones.Load(name); ok {
		return z.(zone).loc, z.(zone).err
	}
	loc, err := time.LoadLocation(name)
	if err != nil && name == defaultZone {
		loc, err = chinaStandardTime, nil
	}
	zones.Store(name, zone{loc, err})
	return loc, err
}
