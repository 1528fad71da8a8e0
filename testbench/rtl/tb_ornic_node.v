// tb_ornic_node: drives testbench/rtl/ornic_node.v with a PSN stimulus file and
// dumps its VCD, for scripts/vcd-compare against oonic's bitmap_stream VCD.
//
//   iverilog -g2005 -o tb.vvp -P tb_ornic_node.B=<B> [-P tb_ornic_node.M=16 ...] \
//       testbench/rtl/tb_ornic_node.v testbench/rtl/ornic_node.v
//   vvp -n tb.vvp +stim=STIM.txt +vcd=rtl.vcd [+tail=16]
//
// Stimulus: one packet a line, "CYCLE PSN" in decimal; lines that do not scan
// as two numbers ('#' comments, blank lines) are skipped. Cycles must increase
// and start at 1: cycle 0 is the reset edge.
//
// Timing: clk starts low and rises at k*PERIOD_PS + PERIOD_PS/2; that rising
// edge is cycle k (the first one, cycle 0, is the synchronous reset). The
// packet of cycle c is driven at c*PERIOD_PS (the falling edge before rising
// edge c): psn and psn_valid are sampled at edge c, psn holds its value until
// the next packet (as oonic's bitmap_manager.psn). The run ends after edge
// last_cycle + tail, the last cycle bitmap_stream --tail puts in oonic's VCD.
// Any "TB ERROR" line means the run is not a valid oracle run.
`timescale 1ps / 1ps
module tb_ornic_node;
  parameter integer M = 16;
  parameter integer ID_W = 12;
  parameter [23:0] B = 24'd0;
  parameter integer NODE = 1;
  parameter integer FIRST_ID = 0;
  parameter integer PERIOD_PS = 4000;  // 250 MHz, oonic's nic.clock_mhz default

  reg             clk = 1'b0;
  reg             rst = 1'b1;
  reg             psn_valid = 1'b0;
  reg  [23:0]     psn = 24'd0;
  wire            in_ready;
  wire            valid;
  wire            all_1;
  wire [ID_W-1:0] block_id;
  wire [M-1:0]    bits;

  ornic_node #(.M(M), .ID_W(ID_W), .B(B), .NODE(NODE), .FIRST_ID(FIRST_ID)) dut (
      .clk(clk), .rst(rst), .in_valid(psn_valid), .in_psn(psn), .in_ready(in_ready),
      .valid(valid), .all_1(all_1), .block_id(block_id), .bits(bits));

  always #(PERIOD_PS / 2) clk = ~clk;

  reg [8*4096-1:0] stim_name;
  reg [8*4096-1:0] vcd_name;
  reg [8*1024-1:0] line;
  integer fd, r, lineno, packets, errors, tail;
  integer c_in, p_in;
  time    last_cycle;

  initial begin
    errors = 0;
    packets = 0;
    lineno = 0;
    last_cycle = 0;
    if (!$value$plusargs("stim=%s", stim_name)) begin
      $display("TB ERROR: no +stim=FILE");
      $finish;
    end
    if (!$value$plusargs("vcd=%s", vcd_name)) vcd_name = "rtl.vcd";
    if (!$value$plusargs("tail=%d", tail)) tail = 16;
    fd = $fopen(stim_name, "r");
    if (fd == 0) begin
      $display("TB ERROR: cannot read %0s", stim_name);
      $finish;
    end
    $dumpfile(vcd_name);
    // the testbench's pins and the node's own registers (not the file buffers)
    $dumpvars(0, clk, rst, psn, psn_valid, in_ready, valid, all_1, block_id, bits);
    $dumpvars(1, dut);
    // reset on rising edge 0, released at the falling edge after it
    #(PERIOD_PS);
    rst = 1'b0;
    while (!$feof(fd)) begin
      line = 0;
      r = $fgets(line, fd);
      lineno = lineno + 1;
      if (r > 0 && $sscanf(line, "%d %d", c_in, p_in) == 2) begin
        if (c_in < 1 || (packets > 0 && c_in <= last_cycle)) begin
          $display("TB ERROR: line %0d: cycle %0d must be > %0d", lineno, c_in, last_cycle);
          errors = errors + 1;
        end else begin
          if ($time < c_in * PERIOD_PS) #(c_in * PERIOD_PS - $time);
          psn = p_in;
          psn_valid = 1'b1;
          if (!in_ready) begin
            $display("TB ERROR: line %0d: PSN %0d at cycle %0d while the node is busy",
                     lineno, p_in, c_in);
            errors = errors + 1;
          end
          #(PERIOD_PS);  // rising edge c_in samples it
          psn_valid = 1'b0;
          last_cycle = c_in;
          packets = packets + 1;
        end
      end
    end
    $fclose(fd);
    // run through rising edge last_cycle + tail, stop before the next one
    #((last_cycle + tail + 1) * PERIOD_PS - $time);
    $display("tb_ornic_node: %0d packets, last at cycle %0d, %0d errors", packets, last_cycle,
             errors);
    $finish;
  end
endmodule
