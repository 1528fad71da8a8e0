// ornic_node: RTL oracle of ONE ORNIC bitmap block node (docs/DESIGN.md M1
// "Bitmap", ORNIC Figure 7) for one QP, held against oonic's Bitmap Manager
// (model/ornic/rx/bitmap_manager.cpp over model/ordering/ornic_bitmap.cpp) by
// scripts/vcd-compare. See testbench/rtl/README.md and docs/VCD.md.
//
// The node is {block_id, valid, all_1} plus the M bits of the block it holds.
// The QP's window starts at PSN B (its start PSN, the ePSN at open); the node is
// node NODE of the QP's cyclic array and covers PSNs [B + NODE*M, B + NODE*M + M)
// (24-bit PSN arithmetic). It models a NON-header node: the QP's ePSN stays
// below the node for the whole stimulus (a hole in an earlier node), so a block
// that becomes all ones is freed and the node keeps valid = 1, all_1 = 1 (the
// ORNIC rule). The core's header-node variant (an in-order fill clears the node
// and scans the nodes after it) depends on other nodes and is out of scope, as
// are OTD NAKs (run the model with an OTD above the window).
//
// Cost model, as the core's receive() for a packet landing in this node (one
// cycle each; the packet is presented at cycle t, i.e. sampled at rising edge
// t, and the node's outputs change at edge t + cycles, the cycle oonic's
// Bitmap Manager records its done = grant + cycles with grant = t):
//   LOCATE  1  node array read; all_1 node: duplicate, done (1 cycle)
//   ALLOC   1  node not valid: block id from the free counter (first id
//              FIRST_ID, default 0: the core's pool hands out 0, 1, 2, ... until
//              a block is freed, so FIRST_ID = blocks other nodes took first)
//   SET     1  block read-modify-write; bit already set: duplicate, no write
//   FREE    1  the block became all ones: released, valid = 1, all_1 = 1
// block_id and bits show the block the node holds, 0 when it holds none.
// One packet at a time, as the Bitmap Manager's single port: a packet may
// arrive at the edge where the previous one finishes, not before (in_ready;
// the testbench flags a packet presented while it is low). Packets outside
// the node are ignored (they cost this node nothing).
`timescale 1ps / 1ps
module ornic_node #(
    parameter integer M = 16,        // bits per block
    parameter integer ID_W = 12,     // block id width: log2(pool depth)
    parameter [23:0] B = 24'd0,      // QP window start PSN
    parameter integer NODE = 1,      // node index in the QP's array (>= 1)
    parameter integer FIRST_ID = 0   // first block id the free counter hands out
) (
    input  wire            clk,
    input  wire            rst,       // synchronous, active high
    input  wire            in_valid,  // a PSN of the QP this cycle
    input  wire [23:0]     in_psn,
    output wire            in_ready,
    output reg             valid,
    output reg             all_1,
    output reg [ID_W-1:0]  block_id,
    output reg [M-1:0]     bits
);
  localparam [23:0] NODE_BASE = B + NODE * M;  // truncated: mod 2^24
  localparam [2:0] S_IDLE = 3'd0, S_LOCATE = 3'd1, S_ALLOC = 3'd2, S_SET = 3'd3,
                   S_FREE = 3'd4;

  reg [2:0]      state;
  reg [23:0]     off_r;     // bit index of the packet in the block
  reg [ID_W-1:0] w_id;      // block being worked on
  reg [M-1:0]    w_bits;    // its bits (read, then modified)
  reg [ID_W-1:0] free_ctr;  // next block id of the pool's free counter

  wire [23:0]  off = in_psn - NODE_BASE;
  wire         hit = off < M;
  wire [M-1:0] one = 1;
  wire [M-1:0] set_bits = w_bits | (one << off_r);

  // The last cycle of a packet's operations: the port is free at the next edge,
  // where the next packet may start (oonic grants it at done = grant + cycles).
  wire finish = (state == S_LOCATE && all_1) ||
                (state == S_SET && (w_bits[off_r] || !(&set_bits))) ||
                (state == S_FREE);
  assign in_ready = state == S_IDLE || finish;
  wire start = in_valid && hit && in_ready;

  always @(posedge clk) begin
    if (rst) begin
      state    <= S_IDLE;
      off_r    <= 24'd0;
      w_id     <= {ID_W{1'b0}};
      w_bits   <= {M{1'b0}};
      free_ctr <= FIRST_ID;
      valid    <= 1'b0;
      all_1    <= 1'b0;
      block_id <= {ID_W{1'b0}};
      bits     <= {M{1'b0}};
    end else begin
      case (state)
        S_IDLE: ;
        S_LOCATE:  // node array read
          if (all_1) begin
            state <= S_IDLE;  // duplicate: the block was already full and freed
          end else if (!valid) begin
            state <= S_ALLOC;
          end else begin
            w_id   <= block_id;
            w_bits <= bits;
            state  <= S_SET;
          end
        S_ALLOC: begin  // pop the free list
          w_id     <= free_ctr;
          free_ctr <= free_ctr + 1'b1;
          w_bits   <= {M{1'b0}};
          state    <= S_SET;
        end
        S_SET:  // block read-modify-write
          if (w_bits[off_r]) begin
            state <= S_IDLE;  // duplicate: bit already set, nothing written
          end else if (&set_bits) begin
            w_bits <= set_bits;
            state  <= S_FREE;
          end else begin
            valid    <= 1'b1;
            all_1    <= 1'b0;
            block_id <= w_id;
            bits     <= set_bits;
            state    <= S_IDLE;
          end
        S_FREE: begin  // push the full block back; the node keeps valid, all_1
          valid    <= 1'b1;
          all_1    <= 1'b1;
          block_id <= {ID_W{1'b0}};
          bits     <= {M{1'b0}};
          state    <= S_IDLE;
        end
        default: state <= S_IDLE;
      endcase
      if (start) begin  // a packet of this node: its locate is the next cycle
        off_r <= off;
        state <= S_LOCATE;
      end
    end
  end
endmodule
