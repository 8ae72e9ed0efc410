package main

import (
	"strings"
	"testing"
)

func TestCheckSale(t *testing.T) {
	tests := []struct {
		name     string
		r        sale
		wantFail string
	}{
		{"right", sale{Sold: 50, SoldOut: 10, Final: 0}, ""},
		{"oversold", sale{Sold: 60, SoldOut: 0, Final: 0}, "60 sold, want 50"},
		{"lost update", sale{Sold: 50, SoldOut: 10, Final: 3}, "stock left 3, want 0"},
		{"wrong sold out", sale{Sold: 50, SoldOut: 9, Final: 0}, "9 told sold out, want 10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := &verdict{}
			checkSale(v, "round", tt.r, 50, 60)
			err := v.Err()
			switch {
			case tt.wantFail == "" && err != nil:
				t.Errorf("checkSale failed: %v", err)
			case tt.wantFail != "" && (err == nil || !strings.Contains(err.Error(), tt.wantFail)):
				t.Errorf("checkSale = %v, want a failure mentioning %q", err, tt.wantFail)
			}
		})
	}
}
